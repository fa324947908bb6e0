<?php

declare(strict_types=1);

namespace MomoPayments;

use MomoPayments\Exception\InvalidWebhookSecretException;
use MomoPayments\Exception\SignatureVerificationException;
use MomoPayments\Generated\Operations;
use MomoPayments\Models\Event;

/**
 * Standard Webhooks verification in one call: checks webhook-id, webhook-timestamp (within the
 * tolerance, both ways) and webhook-signature against one or several secrets (rotation), then
 * returns the typed event. Give the raw request body, byte for byte, not a re-encoded array.
 */
final class Webhook
{
    public const DEFAULT_TOLERANCE = 300;
    /** Standard Webhooks: a symmetric secret is 24 to 64 random bytes (192 to 512 bits). */
    public const MIN_SECRET_BYTES = 24;
    public const MAX_SECRET_BYTES = 64;
    private const STRICT_BASE64 = '~^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$~D';

    /**
     * @param string $payload the raw body
     * @param array<string, string|list<string>> $headers any casing (getallheaders(), Laravel's $request->headers->all(), $_SERVER)
     * @param string|list<string> $secrets "whsec_…" (or its base64 alone); several during a rotation
     * @return Model the event: PayinCompletedEvent, RefundCompletedEvent… (Event for a type newer than the SDK)
     * @throws SignatureVerificationException
     * @throws InvalidWebhookSecretException before the request is looked at, when a secret is empty or malformed
     */
    public static function verify(string $payload, array $headers, string|array $secrets, int $tolerance = self::DEFAULT_TOLERANCE, ?int $now = null): Model
    {
        $data = self::verifyPayload($payload, $headers, $secrets, $tolerance, $now);
        $type = is_string($data['type'] ?? null) ? $data['type'] : '';
        $class = Operations::EVENT_TYPES[$type] ?? Event::class;
        return $class::fromArray($data);
    }

    /**
     * The same checks, answering the decoded JSON (array) instead of a model.
     *
     * @param array<string, string|list<string>> $headers
     * @param string|list<string> $secrets
     * @return array<string, mixed>
     */
    public static function verifyPayload(string $payload, array $headers, string|array $secrets, int $tolerance = self::DEFAULT_TOLERANCE, ?int $now = null): array
    {
        $keys = self::keys($secrets);
        $h = self::normalize($headers);
        $id = $h['webhook-id'] ?? null;
        $timestamp = $h['webhook-timestamp'] ?? null;
        $signatures = $h['webhook-signature'] ?? null;
        if ($id === null || $timestamp === null || $signatures === null) {
            throw new SignatureVerificationException('Missing webhook-id, webhook-timestamp or webhook-signature header');
        }
        if (!preg_match('/^\d{1,15}$/', $timestamp)) {
            throw new SignatureVerificationException('Invalid webhook-timestamp');
        }
        $now ??= time();
        if ((int) $timestamp < $now - $tolerance) {
            throw new SignatureVerificationException('Message timestamp too old');
        }
        if ((int) $timestamp > $now + $tolerance) {
            throw new SignatureVerificationException('Message timestamp too new');
        }
        $signed = "{$id}.{$timestamp}.{$payload}";
        $expected = [];
        foreach ($keys as $key) {
            $expected[] = base64_encode(hash_hmac('sha256', $signed, $key, true));
        }
        foreach (preg_split('/\s+/', trim($signatures)) ?: [] as $candidate) {
            [$version, $sig] = array_pad(explode(',', $candidate, 2), 2, '');
            if ($version !== 'v1') {
                continue;
            }
            foreach ($expected as $e) {
                if (hash_equals($e, $sig)) {
                    $data = json_decode($payload, true);
                    if (!is_array($data)) {
                        throw new SignatureVerificationException('The signed payload is not a JSON object');
                    }
                    return $data;
                }
            }
        }
        throw new SignatureVerificationException('No matching signature found');
    }

    /** The v1 signature header value for a message (for tests and local tools). */
    public static function sign(string $secret, string $id, int $timestamp, string $payload): string
    {
        return 'v1,' . base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$payload}", self::key($secret), true));
    }

    /**
     * The HMAC keys of one or several secrets; refuses an empty list and any invalid secret.
     *
     * @param string|list<string> $secrets
     * @return list<string>
     */
    private static function keys(string|array $secrets): array
    {
        $list = is_array($secrets) ? array_values($secrets) : [$secrets];
        if ($list === []) {
            throw new InvalidWebhookSecretException('No webhook secret given; ' . self::expected());
        }
        return array_map(static fn (mixed $s): string => self::key(is_string($s) ? $s : throw new InvalidWebhookSecretException('The webhook secret is not a string; ' . self::expected())), $list);
    }

    /**
     * The HMAC key of a secret; refuses, as the Node and Python SDKs do, an empty one (anyone can sign
     * with an empty key), "whsec_" alone, anything but strict base64, or a key not 24 to 64 bytes.
     */
    private static function key(string $secret): string
    {
        $b64 = str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret;
        if ($b64 === '') {
            throw new InvalidWebhookSecretException('The webhook secret is empty (is it set?); ' . self::expected());
        }
        // base64_decode's strict mode still skips whitespace and accepts missing padding: a regex first.
        $key = preg_match(self::STRICT_BASE64, $b64) === 1 ? base64_decode($b64, true) : false;
        if ($key === false) {
            throw new InvalidWebhookSecretException('The webhook secret is not valid base64; ' . self::expected());
        }
        $n = strlen($key);
        if ($n < self::MIN_SECRET_BYTES || $n > self::MAX_SECRET_BYTES) {
            throw new InvalidWebhookSecretException("The webhook secret decodes to {$n} bytes; " . self::expected());
        }
        return $key;
    }

    private static function expected(): string
    {
        return sprintf('expected "whsec_" followed by the base64 of %d to %d bytes', self::MIN_SECRET_BYTES, self::MAX_SECRET_BYTES);
    }

    /**
     * @param array<string, mixed> $headers
     * @return array<string, string>
     */
    private static function normalize(array $headers): array
    {
        $out = [];
        foreach ($headers as $name => $value) {
            $name = strtolower((string) $name);
            if (str_starts_with($name, 'http_')) {
                $name = substr($name, 5); // $_SERVER['HTTP_WEBHOOK_ID']
            }
            $name = str_replace('_', '-', $name); // $_SERVER and WordPress's get_headers() spell them webhook_id
            $out[$name] = is_array($value) ? (string) reset($value) : (string) $value;
        }
        return $out;
    }
}
