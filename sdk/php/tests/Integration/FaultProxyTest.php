<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Integration;

use MomoPayments\Client;
use MomoPayments\Exception\InvalidRequestException;
use MomoPayments\Tests\Support\Receiver;
use MomoPayments\Tests\Support\StackTestCase;

/**
 * The retry policy against the real API through the fault proxy (MOMO_FAULT_URL; without it, the
 * tests start tests/Support/fault-proxy.php, a stand-in speaking the same protocol): a 503 on a POST
 * is retried with the same idempotency key and the API created the object once, and so is a 409
 * REQUEST_IN_PROGRESS; a 429 is retried
 * after its Retry-After; a 4xx is sent once.
 */
final class FaultProxyTest extends StackTestCase
{
    private static ?Receiver $standIn = null;
    private static string $faultUrl;

    public static function setUpBeforeClass(): void
    {
        $given = getenv('MOMO_FAULT_URL');
        if (is_string($given) && $given !== '') {
            self::$faultUrl = rtrim($given, '/');
            return;
        }
        $base = getenv('MOMO_BASE_URL');
        if (!is_string($base) || $base === '') {
            return;
        }
        self::$standIn = new Receiver(__DIR__ . '/../Support/fault-proxy.php', ['FAULT_TARGET' => $base], '');
        self::$faultUrl = self::$standIn->url;
    }

    public static function tearDownAfterClass(): void
    {
        self::$standIn?->stop();
        self::$standIn = null;
    }

    private static function proxied(): Client
    {
        return self::client(['baseUrl' => self::$faultUrl]);
    }

    /** @param array<string, mixed>|null $body */
    private static function control(string $method, string $path, ?array $body = null): mixed
    {
        $ch = curl_init(self::$faultUrl . $path);
        curl_setopt_array($ch, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_HTTPHEADER => ['Content-Type: application/json'],
            CURLOPT_TIMEOUT => 10,
        ]);
        if ($body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
        }
        $out = curl_exec($ch);
        $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        self::assertLessThan(300, $status, "fault proxy {$method} {$path}");
        return is_string($out) && $out !== '' ? json_decode($out, true) : null;
    }

    /** @return list<array{method: string, path: string, idempotencyKey: ?string, status: int, injected: bool}> */
    private static function log(string $pathPrefix): array
    {
        return array_values(array_filter(
            self::control('GET', '/__faults/log'),
            static fn (array $e) => str_starts_with($e['path'], $pathPrefix),
        ));
    }

    protected function setUp(): void
    {
        self::env('MOMO_BASE_URL');
        self::control('DELETE', '/__faults/log');
    }

    /**
     * A direct payin through the proxy, whose first answer is `$status` (the request itself
     * forwarded): the retry carries the same key and gets the payin the first attempt created, once.
     *
     * @return list<array{method: string, path: string, idempotencyKey: ?string, status: int, injected: bool}> the two attempts, as the proxy logged them
     */
    private static function createThroughOneStagedAnswer(int $status, string $label): array
    {
        self::control('POST', '/__faults', ['status' => $status, 'retryAfter' => 1, 'times' => 1, 'forward' => true]);
        $ref = self::ref($label);
        $payin = self::proxied()->payins->createDirect([
            'reference' => $ref,
            'payin' => ['amount' => 1500, 'msisdn' => self::MSISDN_CI, 'provider' => 'MTN', 'country' => 'CI'],
            'action' => self::action(),
        ]);
        $log = self::log('/v1/direct/payin');
        self::assertCount(2, $log, 'the POST was sent twice');
        self::assertSame([$status, true], [$log[0]['status'], $log[0]['injected']]);
        self::assertFalse($log[1]['injected']);
        self::assertLessThan(300, $log[1]['status']);
        self::assertNotEmpty($log[0]['idempotencyKey']);
        self::assertSame($log[0]['idempotencyKey'], $log[1]['idempotencyKey']);
        // The forwarded first attempt created the payin; the retry got that same object back.
        $direct = self::client();
        self::assertSame($payin->id, $direct->payins->retrieve($ref)->id);
        self::assertCount(1, iterator_to_array($direct->transactions->autoPagingIterator(['reference' => $ref]), false));
        return $log;
    }

    public function test503OnAPostIsRetriedWithTheSameKeyAndCreatesOnce(): void
    {
        $log = self::createThroughOneStagedAnswer(503, 'retry503');
        if (array_key_exists('upstreamStatus', $log[0])) {
            // The harness's proxy also logs what the API answered the discarded attempt: it created the payin.
            self::assertSame(201, $log[0]['upstreamStatus']);
        }
    }

    /** What a merchant meets when its retry reaches another API process while the first answer is stored. */
    public function test409RequestInProgressOnAPostIsRetriedWithTheSameKey(): void
    {
        self::createThroughOneStagedAnswer(409, 'retry409');
    }

    public function test429IsRetriedAfterRetryAfter(): void
    {
        self::control('POST', '/__faults', ['status' => 429, 'retryAfter' => 1, 'times' => 1, 'forward' => false]);
        $started = microtime(true);
        $accounts = self::proxied()->accounts->list();
        $elapsed = microtime(true) - $started;
        self::assertNotEmpty($accounts->data);
        $log = self::log('/v1/accounts');
        self::assertCount(2, $log);
        self::assertTrue($log[0]['injected']);
        self::assertSame(429, $log[0]['status']);
        self::assertSame(200, $log[1]['status']);
        self::assertGreaterThanOrEqual(1.0, $elapsed, 'waited Retry-After: 1');
    }

    public function testA4xxIsSentOnce(): void
    {
        $client = self::proxied();
        try {
            $client->payins->createDirect(['reference' => self::ref('bad'), 'payin' => ['amount' => -1], 'action' => self::action()]);
            self::fail('expected a 400');
        } catch (InvalidRequestException $e) {
            self::assertSame(400, $e->status);
            self::assertSame('VALIDATION_ERROR', $e->errorCode);
        }
        $log = self::log('/v1/direct/payin');
        self::assertCount(1, $log, 'a 400 is not retried');
        self::assertSame(400, $log[0]['status']);
        self::assertFalse($log[0]['injected']);
    }
}
