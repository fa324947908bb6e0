<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Unit;

use MomoPayments\Client;
use MomoPayments\Exception\ApiConnectionException;
use MomoPayments\Exception\AuthenticationException;
use MomoPayments\Exception\ConflictException;
use MomoPayments\Exception\InvalidRequestException;
use MomoPayments\Exception\NotFoundException;
use MomoPayments\Exception\PermissionDeniedException;
use MomoPayments\Exception\RateLimitException;
use MomoPayments\Exception\ServiceUnavailableException;
use MomoPayments\Exception\TimeoutException;
use MomoPayments\Http\Psr18Transport;
use MomoPayments\Http\Request;
use MomoPayments\Http\Response;
use MomoPayments\Http\Transport;
use MomoPayments\Models\TransactionRecord;
use PHPUnit\Framework\TestCase;

/** The retry policy against a scripted transport (no stack): what is retried, how long it waits, the key kept. */
final class RetryPolicyTest extends TestCase
{
    /** @var list<Request> */
    private array $sent = [];
    /** @var list<float> */
    private array $slept = [];

    /** @param list<Response|\Throwable> $script */
    private function client(array $script, array $config = []): Client
    {
        $transport = new class ($script, $this->sent) implements Transport {
            /** @param list<Response|\Throwable> $script @param list<Request> $sent */
            public function __construct(private array $script, private array &$sent)
            {
            }

            public function send(Request $request): Response
            {
                $this->sent[] = $request;
                $next = array_shift($this->script) ?? throw new \LogicException('script exhausted');
                if ($next instanceof \Throwable) {
                    throw $next;
                }
                return $next;
            }
        };
        return new Client($config + [
            'apiKey' => 'mk_test_x',
            'apiClient' => 'sk_test_y',
            'baseUrl' => 'http://api.invalid/',
            'transport' => $transport,
            'sleep' => function (float $s): void {
                $this->slept[] = $s;
            },
        ]);
    }

    private static function problem(int $status, string $code, array $headers = []): Response
    {
        return new Response($status, $headers + ['content-type' => 'application/problem+json', 'x-request-id' => 'req-1'], json_encode([
            'type' => "/docs/errors#{$code}", 'title' => 'T', 'status' => $status, 'code' => $code, 'detail' => 'D',
            'errors' => [['path' => 'payin.amount', 'message' => 'Required']],
        ]));
    }

    private static function ok(array $body, int $status = 200): Response
    {
        return new Response($status, ['content-type' => 'application/json'], json_encode($body));
    }

    public function test503ThenSuccessKeepsTheIdempotencyKeyAndBacksOff(): void
    {
        $client = $this->client([self::problem(503, 'DECISION_PENDING'), self::problem(503, 'DECISION_PENDING'), self::ok(['id' => 'pr_1', 'reference' => 'r'], 201)]);
        $payin = $client->payins->createDirect(['reference' => 'r']);
        self::assertInstanceOf(TransactionRecord::class, $payin);
        self::assertSame('pr_1', $payin->id);
        self::assertCount(3, $this->sent);
        $keys = array_unique(array_map(static fn (Request $r) => $r->headers['X-Idempotency-Key'], $this->sent));
        self::assertCount(1, $keys);
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $keys[0]);
        // No Retry-After: exponential backoff with jitter, 0.25–0.5 s then 0.5–1 s.
        self::assertCount(2, $this->slept);
        self::assertGreaterThanOrEqual(0.25, $this->slept[0]);
        self::assertLessThanOrEqual(0.5, $this->slept[0]);
        self::assertGreaterThanOrEqual(0.5, $this->slept[1]);
        self::assertLessThanOrEqual(1.0, $this->slept[1]);
    }

    public function test429HonoursRetryAfter(): void
    {
        $client = $this->client([self::problem(429, 'RATE_LIMITED', ['retry-after' => '2']), self::ok(['data' => []])]);
        $client->accounts->list();
        self::assertSame([2.0], $this->slept);
        self::assertCount(2, $this->sent);
    }

    public function testGivesUpAfterMaxRetriesWithTheTypedException(): void
    {
        $client = $this->client(array_fill(0, 3, self::problem(429, 'RATE_LIMITED', ['retry-after' => '1'])), ['maxRetries' => 2]);
        try {
            $client->accounts->list();
            self::fail('expected a RateLimitException');
        } catch (RateLimitException $e) {
            self::assertSame(429, $e->status);
            self::assertSame('RATE_LIMITED', $e->errorCode);
            self::assertSame(1, $e->retryAfter);
        }
        self::assertCount(3, $this->sent);
    }

    public function test409RequestInProgressIsRetriedWithTheSameKeyAfterRetryAfter(): void
    {
        $client = $this->client([self::problem(409, 'REQUEST_IN_PROGRESS', ['retry-after' => '1']), self::ok(['id' => 'pr_3', 'reference' => 'r'], 201)]);
        self::assertSame('pr_3', $client->payins->createDirect(['reference' => 'r'])->id);
        self::assertCount(2, $this->sent);
        self::assertCount(1, array_unique(array_map(static fn (Request $r) => $r->headers['X-Idempotency-Key'], $this->sent)));
        self::assertSame([1.0], $this->slept);

        $this->sent = [];
        $client = $this->client(array_fill(0, 3, self::problem(409, 'REQUEST_IN_PROGRESS', ['retry-after' => '1'])), ['maxRetries' => 2]);
        try {
            $client->payins->createDirect(['reference' => 'r']);
            self::fail('expected a ConflictException');
        } catch (ConflictException $e) {
            self::assertSame('REQUEST_IN_PROGRESS', $e->errorCode);
        }
        self::assertCount(3, $this->sent);
    }

    public function testAnyOther409IsFinal(): void
    {
        foreach (['DUPLICATE_REFUND', 'IDEMPOTENCY_KEY_REUSED', 'ALREADY_FINAL'] as $code) {
            $this->sent = [];
            $client = $this->client([self::problem(409, $code, ['retry-after' => '1']), self::ok(['id' => 'pr_4'], 201)]);
            try {
                $client->payins->createDirect(['reference' => 'r']);
                self::fail("expected a ConflictException for {$code}");
            } catch (ConflictException $e) {
                self::assertSame($code, $e->errorCode);
            }
            self::assertCount(1, $this->sent);
        }
        self::assertSame([], $this->slept);
    }

    public function test401IsAuthenticationAnd403IsPermissionDenied(): void
    {
        $client = $this->client([self::problem(401, 'UNAUTHORIZED'), self::problem(403, 'INSUFFICIENT_BALANCE')]);
        try {
            $client->accounts->list();
            self::fail('expected an AuthenticationException');
        } catch (AuthenticationException $e) {
            self::assertNotInstanceOf(PermissionDeniedException::class, $e);
            self::assertSame(401, $e->status);
        }
        try {
            $client->accounts->list();
            self::fail('expected a PermissionDeniedException');
        } catch (PermissionDeniedException $e) {
            self::assertSame(403, $e->status);
            self::assertSame('INSUFFICIENT_BALANCE', $e->errorCode);
            // Code written for 1.0.0, catching AuthenticationException for a 403, still catches it.
            self::assertInstanceOf(AuthenticationException::class, $e);
        }
    }

    public function test4xxIsNeverRetried(): void
    {
        foreach ([[400, 'VALIDATION_ERROR', InvalidRequestException::class], [404, 'PAYMENT_NOT_FOUND', NotFoundException::class]] as [$status, $code, $class]) {
            $this->sent = [];
            $client = $this->client([self::problem($status, $code), self::ok([])]);
            try {
                $client->payins->retrieve('nope');
                self::fail("expected {$class}");
            } catch (InvalidRequestException|NotFoundException $e) {
                self::assertInstanceOf($class, $e);
                self::assertSame($status, $e->getStatus());
                self::assertSame($code, $e->getErrorCode());
                self::assertSame("/docs/errors#{$code}", $e->getType());
                self::assertSame('D', $e->getDetail());
                self::assertSame('req-1', $e->getRequestId());
                self::assertSame([['path' => 'payin.amount', 'message' => 'Required']], $e->getFieldErrors());
            }
            self::assertCount(1, $this->sent);
        }
        self::assertSame([], $this->slept);
    }

    public function testConnectionErrorsAreRetriedWithTheSameKeyThenRaised(): void
    {
        $client = $this->client([new TimeoutException('t'), self::ok(['id' => 'pr_2'], 201)]);
        self::assertSame('pr_2', $client->payouts->createDirect(['reference' => 'r'], ['idempotencyKey' => 'my-key'])->id);
        self::assertSame(['my-key', 'my-key'], array_map(static fn (Request $r) => $r->headers['X-Idempotency-Key'], $this->sent));

        $client = $this->client(array_fill(0, 4, new ApiConnectionException('down')));
        $this->expectException(ApiConnectionException::class);
        $client->accounts->list();
    }

    public function testServiceUnavailableAfterRetriesAndHeaders(): void
    {
        $client = $this->client(array_fill(0, 2, self::problem(503, 'DEPENDENCY_UNAVAILABLE')), ['maxRetries' => 1, 'acceptLanguage' => 'fr']);
        try {
            $client->transactions->list(['limit' => 5, 'metadata' => ['orderId' => '42'], 'type' => 'payin']);
            self::fail('expected a ServiceUnavailableException');
        } catch (ServiceUnavailableException $e) {
            self::assertSame(503, $e->status);
        }
        $r = $this->sent[0];
        self::assertSame('GET', $r->method);
        self::assertSame('http://api.invalid/v1/transactions?limit=5&metadata%5BorderId%5D=42&type=payin', $r->url);
        self::assertSame('fr', $r->headers['Accept-Language']);
        self::assertSame('Basic ' . base64_encode('mk_test_x:sk_test_y'), $r->headers['Authorization']);
        self::assertArrayNotHasKey('X-Idempotency-Key', $r->headers);
    }

    public function testPsr18ClientIsUsedWhenGiven(): void
    {
        // Duck-typed stand-ins for a PSR-18 client and PSR-17/PSR-7 objects (psr/http-client is not installed here).
        $message = new class () {
            public string $method = '';
            public string $uri = '';
            public array $headers = [];
            public string $body = '';
            public function withHeader(string $n, string $v): static { $c = clone $this; $c->headers[$n] = $v; return $c; }
            public function withBody(object $s): static { $c = clone $this; $c->body = (string) $s; return $c; }
        };
        $factory = new class ($message) {
            public function __construct(private object $message) {}
            public function createRequest(string $method, string $uri): object { $m = clone $this->message; $m->method = $method; $m->uri = $uri; return $m; }
            public function createStream(string $content): object { return new class ($content) { public function __construct(private string $c) {} public function __toString(): string { return $this->c; } }; }
        };
        $http = new class () {
            public array $seen = [];
            public function sendRequest(object $request): object
            {
                $this->seen[] = $request;
                return new class () {
                    public function getStatusCode(): int { return 201; }
                    public function getHeaders(): array { return ['Content-Type' => ['application/json']]; }
                    public function getBody(): string { return '{"id":"we_1","secret":"whsec_abc","url":"https://x.example/h"}'; }
                };
            }
        };
        $client = new Client(['apiKey' => 'mk_test_x', 'apiClient' => 'sk_y', 'baseUrl' => 'http://api.invalid', 'httpClient' => $http, 'requestFactory' => $factory, 'streamFactory' => $factory]);
        $endpoint = $client->webhookEndpoints->create(['url' => 'https://x.example/h']);
        self::assertSame('whsec_abc', $endpoint->secret);
        self::assertSame('POST', $http->seen[0]->method);
        self::assertSame('http://api.invalid/v1/webhooks', $http->seen[0]->uri);
        self::assertSame('{"url":"https://x.example/h"}', $http->seen[0]->body);
        self::assertArrayHasKey('X-Idempotency-Key', $http->seen[0]->headers);
        $this->expectException(\InvalidArgumentException::class);
        new Psr18Transport(new \stdClass(), $factory, $factory);
    }
}
