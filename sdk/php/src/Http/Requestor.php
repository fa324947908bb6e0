<?php

declare(strict_types=1);

namespace MomoPayments\Http;

use MomoPayments\Client;
use MomoPayments\Exception\ApiConnectionException;
use MomoPayments\Exception\ApiException;

/**
 * Sends one logical call: credentials, Accept-Language, an idempotency key per POST (kept across
 * retries, so the API does the work once), and retries on 429/503, 409 REQUEST_IN_PROGRESS and lost
 * connections only.
 */
final class Requestor
{
    /**
     * The 409 the API answers (with Retry-After: 1) while the first request with the same key is still
     * running or its answer is being stored: sent again, the request gets that answer. Any other 409
     * (a duplicate refund, a key reused with another body) is final.
     */
    public const RETRY_CONFLICT_CODE = 'REQUEST_IN_PROGRESS';

    /** @var callable(float): void */
    private $sleep;

    public function __construct(
        private readonly string $baseUrl,
        private readonly string $apiKey,
        private readonly string $apiClient,
        private readonly Transport $transport,
        private readonly ?string $acceptLanguage = null,
        private readonly float $timeout = 30.0,
        private readonly int $maxRetries = 3,
        private readonly float $initialDelay = 0.5,
        private readonly float $maxDelay = 8.0,
        ?callable $sleep = null,
    ) {
        $this->sleep = $sleep ?? static function (float $seconds): void {
            usleep((int) round($seconds * 1_000_000));
        };
    }

    public function baseUrl(): string
    {
        return $this->baseUrl;
    }

    /**
     * @param array<string, mixed> $query
     * @param array<string, mixed>|null $body
     * @param array<string, mixed> $opts idempotencyKey, acceptLanguage, timeout, maxRetries
     */
    public function request(string $method, string $path, array $query, ?array $body, array $opts = []): Response
    {
        $url = $this->baseUrl . $path;
        $qs = self::query($query);
        if ($qs !== '') {
            $url .= '?' . $qs;
        }
        $headers = [
            'Authorization' => 'Basic ' . base64_encode($this->apiKey . ':' . $this->apiClient),
            'Accept' => 'application/json',
            'User-Agent' => 'momo-payments-php/' . Client::VERSION . ' php/' . PHP_VERSION,
        ];
        $language = $opts['acceptLanguage'] ?? $this->acceptLanguage;
        if (is_string($language) && $language !== '') {
            $headers['Accept-Language'] = $language;
        }
        if ($method === 'POST') {
            $key = $opts['idempotencyKey'] ?? null;
            $headers['X-Idempotency-Key'] = is_string($key) && $key !== '' ? $key : self::uuid4();
        }
        $payload = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            $payload = json_encode($body === [] ? new \stdClass() : $body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        } elseif ($method === 'POST') {
            $headers['Content-Type'] = 'application/json';
            $payload = '{}';
        }
        $request = new Request($method, $url, $headers, $payload, (float) ($opts['timeout'] ?? $this->timeout));
        $maxRetries = (int) ($opts['maxRetries'] ?? $this->maxRetries);

        for ($attempt = 0; ; $attempt++) {
            try {
                $response = $this->transport->send($request);
            } catch (ApiConnectionException $e) {
                // Safe to send again: a GET reads, and a POST carries the same idempotency key.
                if ($attempt >= $maxRetries) {
                    throw $e;
                }
                ($this->sleep)($this->backoff($attempt));
                continue;
            }
            if ($response->status >= 200 && $response->status < 300) {
                return $response;
            }
            $retryAfter = self::retryAfter($response->header('retry-after'));
            if (self::isRetryable($response) && $attempt < $maxRetries) {
                ($this->sleep)($retryAfter !== null ? (float) min($retryAfter, 60) : $this->backoff($attempt));
                continue;
            }
            throw ApiException::fromResponse($response->status, $response->body, $response->header('x-request-id'), $retryAfter);
        }
    }

    /** 429, 503 and 409 REQUEST_IN_PROGRESS are sent again, with the same idempotency key. */
    public static function isRetryable(Response $response): bool
    {
        if ($response->status === 429 || $response->status === 503) {
            return true;
        }
        if ($response->status !== 409) {
            return false;
        }
        $problem = json_decode($response->body, true);
        return is_array($problem) && ($problem['code'] ?? null) === self::RETRY_CONFLICT_CODE;
    }

    /** Exponential backoff with full jitter between half and all of the step. */
    public function backoff(int $attempt): float
    {
        $step = min($this->maxDelay, $this->initialDelay * (2 ** $attempt));
        return $step * (0.5 + mt_rand() / mt_getrandmax() / 2);
    }

    /** Retry-After as seconds (delta-seconds or an HTTP date). */
    public static function retryAfter(?string $value): ?int
    {
        if ($value === null || $value === '') {
            return null;
        }
        if (ctype_digit($value)) {
            return (int) $value;
        }
        $at = strtotime($value);
        return $at === false ? null : max(0, $at - time());
    }

    /** A random (version 4) UUID from random_bytes. */
    public static function uuid4(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }

    /** @param array<string, mixed> $query */
    private static function query(array $query): string
    {
        $pairs = [];
        foreach ($query as $k => $v) {
            if ($v === null) {
                continue;
            }
            if (is_bool($v)) {
                $v = $v ? 'true' : 'false';
            } elseif ($v instanceof \DateTimeInterface) {
                $v = $v->format(DATE_RFC3339_EXTENDED);
            }
            if (is_array($v)) {
                // e.g. metadata[orderId]=42
                foreach ($v as $sk => $sv) {
                    $pairs[] = rawurlencode("{$k}[{$sk}]") . '=' . rawurlencode((string) $sv);
                }
                continue;
            }
            $pairs[] = rawurlencode((string) $k) . '=' . rawurlencode((string) $v);
        }
        return implode('&', $pairs);
    }
}
