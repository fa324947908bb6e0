<?php

declare(strict_types=1);

namespace MomoPayments\Exception;

/**
 * A webhook secret that cannot be a Standard Webhooks secret: empty (an unset environment variable),
 * "whsec_" alone, not strict base64, or not decoding to 24 to 64 bytes. A configuration error, thrown
 * before the request is looked at: never answer it as a forged webhook. An InvalidArgumentException,
 * as a malformed secret threw before 1.0.1. The message never quotes the secret.
 */
class InvalidWebhookSecretException extends \InvalidArgumentException implements MomoException
{
}
