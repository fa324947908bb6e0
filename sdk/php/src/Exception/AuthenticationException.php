<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/**
 * 401: missing or wrong credentials. A 403 is a PermissionDeniedException, a subclass of this one
 * (until 1.0.0 a 403 was thrown as AuthenticationException itself).
 */
class AuthenticationException extends ApiException
{
}
