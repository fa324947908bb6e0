<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Unit;

use MomoPayments\Client;
use MomoPayments\Exception\TimeoutException;
use MomoPayments\Tests\Support\Receiver;
use PHPUnit\Framework\TestCase;

/** The curl transport's timeout against a local server that answers too late (php -S), and its retry. */
final class CurlTimeoutTest extends TestCase
{
    public function testATimeoutIsRetriedWithTheSameKeyThenRaised(): void
    {
        $slow = new Receiver(__DIR__ . '/../Support/slow.php', ['SLOW_SECONDS' => '1'], '');
        try {
            $client = new Client([
                'apiKey' => 'mk_test_x',
                'apiClient' => 'sk_test_y',
                'baseUrl' => $slow->url,
                'timeout' => 0.3,
                'maxRetries' => 1,
                'sleep' => static function (float $s): void {
                },
            ]);
            try {
                $client->webhookEndpoints->create(['url' => 'https://shop.example/hooks']);
                self::fail('expected a TimeoutException');
            } catch (TimeoutException $e) {
                self::assertStringContainsString('timed out', $e->getMessage());
            }
            // php -S serves one request at a time: wait for the second to be recorded.
            $deadline = microtime(true) + 6;
            while (count($slow->received()) < 2 && microtime(true) < $deadline) {
                usleep(100_000);
            }
            $got = $slow->received();
            self::assertCount(2, $got, 'one retry after the timeout');
            $keys = array_map(static fn (array $r) => array_change_key_case($r['headers'])['x-idempotency-key'] ?? null, $got);
            self::assertNotNull($keys[0]);
            self::assertSame($keys[0], $keys[1]);
        } finally {
            $slow->stop();
        }
    }
}
