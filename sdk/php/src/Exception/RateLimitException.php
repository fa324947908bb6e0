<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 429 after the SDK's own retries: too many requests. */
class RateLimitException extends ApiException
{
}
