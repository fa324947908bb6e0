<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** Every exception the SDK throws implements this, so one catch covers them all. */
interface MomoException extends \Throwable
{
}
