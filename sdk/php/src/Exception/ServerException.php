<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 5xx: the API failed. */
class ServerException extends ApiException
{
}
