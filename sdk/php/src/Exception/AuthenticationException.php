<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 401 or 403: the credentials are wrong, or not allowed this (e.g. a test helper with a live key). */
class AuthenticationException extends ApiException
{
}
