<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** The API could not be reached, or the connection broke, after the SDK's own retries. */
class ApiConnectionException extends \RuntimeException implements MomoException
{
}
