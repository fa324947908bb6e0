<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** A webhook whose headers, timestamp or signature do not verify: answer it 400 and ignore it. */
class SignatureVerificationException extends \RuntimeException implements MomoException
{
}
