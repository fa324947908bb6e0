<?php

declare(strict_types=1);

namespace MomoPayments\Http;

use MomoPayments\Exception\ApiConnectionException;
use MomoPayments\Exception\TimeoutException;

/**
 * Sends through an application's PSR-18 client (Guzzle 7, Symfony HttpClient's Psr18Client…) with its
 * PSR-17 factories. The SDK does not depend on psr/http-client: the objects are checked for the
 * PSR methods at run time (and against the PSR interfaces when they are loaded), so the SDK installs
 * without Packagist. Timeouts are then the client's own (e.g. Guzzle's 'timeout' option).
 */
final class Psr18Transport implements Transport
{
    /**
     * @param object $client a Psr\Http\Client\ClientInterface (sendRequest)
     * @param object $requestFactory a Psr\Http\Message\RequestFactoryInterface (createRequest)
     * @param object $streamFactory a Psr\Http\Message\StreamFactoryInterface (createStream)
     */
    public function __construct(
        private readonly object $client,
        private readonly object $requestFactory,
        private readonly object $streamFactory,
    ) {
        self::expect($client, 'Psr\Http\Client\ClientInterface', 'sendRequest');
        self::expect($requestFactory, 'Psr\Http\Message\RequestFactoryInterface', 'createRequest');
        self::expect($streamFactory, 'Psr\Http\Message\StreamFactoryInterface', 'createStream');
    }

    private static function expect(object $o, string $interface, string $method): void
    {
        $ok = interface_exists($interface) ? $o instanceof $interface : method_exists($o, $method);
        if (!$ok) {
            throw new \InvalidArgumentException(sprintf('%s is not a %s', $o::class, $interface));
        }
    }

    public function send(Request $request): Response
    {
        $psr = $this->requestFactory->createRequest($request->method, $request->url);
        foreach ($request->headers as $name => $value) {
            $psr = $psr->withHeader($name, $value);
        }
        if ($request->body !== null) {
            $psr = $psr->withBody($this->streamFactory->createStream($request->body));
        }
        try {
            $answer = $this->client->sendRequest($psr);
        } catch (\Throwable $e) {
            // PSR-18 throws only when no answer came; a 4xx/5xx is an answer.
            $network = interface_exists('Psr\Http\Client\NetworkExceptionInterface')
                && $e instanceof \Psr\Http\Client\NetworkExceptionInterface;
            $class = $network && stripos($e->getMessage(), 'timed out') !== false
                ? TimeoutException::class : ApiConnectionException::class;
            throw new $class('The HTTP client could not get an answer: ' . $e::class, 0, $e);
        }
        $headers = [];
        foreach ($answer->getHeaders() as $name => $values) {
            $headers[strtolower((string) $name)] = implode(', ', (array) $values);
        }
        return new Response((int) $answer->getStatusCode(), $headers, (string) $answer->getBody());
    }
}
