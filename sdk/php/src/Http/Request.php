<?php

declare(strict_types=1);

namespace MomoPayments\Http;

/** One HTTP request as a transport sends it. */
final class Request
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly string $method,
        public readonly string $url,
        public readonly array $headers,
        public readonly ?string $body,
        public readonly float $timeout,
    ) {
    }
}
