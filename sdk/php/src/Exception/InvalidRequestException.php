<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 400 or 422: the request is invalid (see fieldErrors); sending it again as is will fail again. */
class InvalidRequestException extends ApiException
{
}
