<?php

declare(strict_types=1);

namespace MomoPayments\Attributes;

/** Marks a model class as the SDK's form of a components.schemas entry (read by manifest.sh). */
#[\Attribute(\Attribute::TARGET_CLASS)]
final class Schema
{
    public function __construct(public readonly string $name)
    {
    }
}
