<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/** 404: no such object for this merchant in this mode. */
class NotFoundException extends ApiException
{
}
