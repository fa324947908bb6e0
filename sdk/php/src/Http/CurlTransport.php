<?php

declare(strict_types=1);

namespace MomoPayments\Http;

use MomoPayments\Exception\ApiConnectionException;
use MomoPayments\Exception\TimeoutException;

/** The default transport, on ext-curl; one handle is kept so connections are reused. */
final class CurlTransport implements Transport
{
    private ?\CurlHandle $handle = null;

    public function __construct(private readonly float $connectTimeout = 10.0)
    {
        if (!extension_loaded('curl')) {
            throw new \LogicException('ext-curl is required by CurlTransport (or give a PSR-18 client)');
        }
    }

    public function send(Request $request): Response
    {
        $this->handle ??= curl_init();
        $ch = $this->handle;
        curl_reset($ch);
        $headers = [];
        foreach ($request->headers as $name => $value) {
            $headers[] = "{$name}: {$value}";
        }
        $received = [];
        curl_setopt_array($ch, [
            CURLOPT_URL => $request->url,
            CURLOPT_CUSTOMREQUEST => $request->method,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => (int) ceil($request->timeout * 1000),
            CURLOPT_CONNECTTIMEOUT_MS => (int) ceil(min($this->connectTimeout, $request->timeout) * 1000),
            CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$received): int {
                $parts = explode(':', $line, 2);
                if (count($parts) === 2) {
                    $received[strtolower(trim($parts[0]))] = trim($parts[1]);
                } elseif (str_starts_with($line, 'HTTP/')) {
                    $received = []; // a new response (after a 100 Continue): forget the previous one's headers
                }
                return strlen($line);
            },
        ]);
        if ($request->body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $request->body);
        } elseif ($request->method === 'GET') {
            curl_setopt($ch, CURLOPT_HTTPGET, true);
        }
        $body = curl_exec($ch);
        if ($body === false) {
            $errno = curl_errno($ch);
            $error = curl_error($ch);
            $this->handle = null; // a broken connection is not reused
            if ($errno === CURLE_OPERATION_TIMEDOUT) {
                throw new TimeoutException("Request timed out after {$request->timeout} s ({$error})");
            }
            throw new ApiConnectionException("Could not reach the API (curl error {$errno}: {$error})");
        }
        return new Response((int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), $received, (string) $body);
    }
}
