<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/**
 * 403: the credentials are right but not allowed this, or the account cannot do it now
 * (e.g. INSUFFICIENT_BALANCE, a test helper called with a live key); read `errorCode`.
 *
 * It extends AuthenticationException only so that code written for 1.0.0, which caught a 403 as
 * AuthenticationException, still catches it; catch PermissionDeniedException for a 403.
 */
class PermissionDeniedException extends AuthenticationException
{
}
