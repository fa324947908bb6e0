<?php

declare(strict_types=1);

namespace MomoPayments\Attributes;

/** Marks a resource method as the SDK's call of an OpenAPI operation (read by manifest.sh). */
#[\Attribute(\Attribute::TARGET_METHOD)]
final class Operation
{
    public function __construct(public readonly string $operationId)
    {
    }
}
