<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** No complete answer within the timeout, after the SDK's own retries. */
class TimeoutException extends ApiConnectionException
{
}
