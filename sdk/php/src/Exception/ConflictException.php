<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 409: the object's state forbids it (e.g. ALREADY_FINAL), or an idempotency key reused with another body. */
class ConflictException extends ApiException
{
}
