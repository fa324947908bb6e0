<?php

declare(strict_types=1);

namespace MomoPayments\Http;

use MomoPayments\Exception\ApiConnectionException;

/**
 * What the client sends its requests through: CurlTransport by default, Psr18Transport for an
 * application's own PSR-18 client (Guzzle…). Any HTTP answer is returned, whatever its status.
 */
interface Transport
{
    /** @throws ApiConnectionException when no answer came (TimeoutException when in time it did not) */
    public function send(Request $request): Response;
}
