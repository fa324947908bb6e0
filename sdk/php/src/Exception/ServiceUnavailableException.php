<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 503 after the SDK's own retries: a dependency is down; retry later with the same idempotency key. */
class ServiceUnavailableException extends ServerException
{
}
