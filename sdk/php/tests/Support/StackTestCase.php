<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Support;

use MomoPayments\Client;
use PHPUnit\Framework\TestCase;

/** Tests against the running stack given by MOMO_BASE_URL, MOMO_API_KEY, MOMO_API_CLIENT. */
abstract class StackTestCase extends TestCase
{
    protected static function env(string $name): string
    {
        $v = getenv($name);
        if ($v === false || $v === '') {
            self::markTestSkipped("{$name} is not set (run sdk/php/run-tests.sh with a stack)");
        }
        return $v;
    }

    /** @param array<string, mixed> $overrides */
    protected static function client(array $overrides = []): Client
    {
        return new Client($overrides + [
            'apiKey' => self::env('MOMO_API_KEY'),
            'apiClient' => self::env('MOMO_API_CLIENT'),
            'baseUrl' => self::env('MOMO_BASE_URL'),
            'timeout' => 20,
        ]);
    }

    /** Per-call options for the calls that wait on the workflow (sandbox helpers, cancels): more 503 retries on a busy stack. */
    protected const PATIENT = ['maxRetries' => 8];

    protected static function ref(string $prefix): string
    {
        return $prefix . '-php-' . bin2hex(random_bytes(6));
    }

    /** A sandbox number of Côte d'Ivoire whose last four digits ask the default outcome. */
    protected const MSISDN_CI = '+2250500000001';
    protected const PAYEE_CI = '+2250700000002';

    /** @return array<string, string> */
    protected static function action(): array
    {
        return ['successUrl' => 'https://shop.example/ok', 'failureUrl' => 'https://shop.example/ko'];
    }

    /**
     * Polls $read until $done accepts its value (or fails after $seconds).
     *
     * @template T
     * @param callable(): T $read
     * @param callable(T): bool $done
     * @return T
     */
    protected static function eventually(callable $read, callable $done, float $seconds = 45.0, string $what = 'the condition')
    {
        $deadline = microtime(true) + $seconds;
        while (true) {
            $value = $read();
            if ($done($value)) {
                return $value;
            }
            if (microtime(true) > $deadline) {
                self::fail("Timed out after {$seconds} s waiting for {$what}");
            }
            usleep(250_000);
        }
    }
}
