<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Unit;

use MomoPayments\Exception\SignatureVerificationException;
use MomoPayments\Models\Event;
use MomoPayments\Models\PayinCompletedEvent;
use MomoPayments\Webhook;
use PHPUnit\Framework\TestCase;

/**
 * The official Standard Webhooks test vectors, copied from standard-webhooks/standard-webhooks,
 * libraries/python/tests/test_webhooks.py (commit 33d368b20c5543357f4f27fd13bed0703b8c5204):
 * the same secret, message id, payload and expected signature, the same valid and invalid cases.
 */
final class WebhookVectorsTest extends TestCase
{
    private const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    private const PAYLOAD = '{"test": 2432232314}';
    private const SECRET = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    private const TOLERANCE = 300;

    /** @return array<string, string> */
    private static function headers(?int $timestamp = null): array
    {
        $ts = $timestamp ?? time();
        return [
            'webhook-id' => self::MSG_ID,
            'webhook-signature' => Webhook::sign(self::SECRET, self::MSG_ID, $ts, self::PAYLOAD),
            'webhook-timestamp' => (string) $ts,
        ];
    }

    public function testSignFunctionMatchesTheOfficialVector(): void
    {
        // test_sign_function: timestamp 1614265330, expected "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=".
        self::assertSame(
            'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
            Webhook::sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', self::MSG_ID, 1614265330, self::PAYLOAD),
        );
    }

    public function testTheOfficialVectorVerifiesAtItsTime(): void
    {
        $headers = [
            'webhook-id' => self::MSG_ID,
            'webhook-timestamp' => '1614265330',
            'webhook-signature' => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
        ];
        $data = Webhook::verifyPayload(self::PAYLOAD, $headers, 'whsec_' . self::SECRET, self::TOLERANCE, 1614265330);
        self::assertSame(2432232314, $data['test']);
    }

    public function testValidSignatureIsValidAndReturnsJson(): void
    {
        self::assertSame(2432232314, Webhook::verifyPayload(self::PAYLOAD, self::headers(), self::SECRET)['test']);
    }

    public function testSignatureVerificationWithAndWithoutPrefix(): void
    {
        self::assertSame(2432232314, Webhook::verifyPayload(self::PAYLOAD, self::headers(), self::SECRET)['test']);
        self::assertSame(2432232314, Webhook::verifyPayload(self::PAYLOAD, self::headers(), 'whsec_' . self::SECRET)['test']);
    }

    public function testMultiSigPayloadIsValid(): void
    {
        $headers = self::headers();
        $headers['webhook-signature'] = implode(' ', [
            'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
            'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
            $headers['webhook-signature'],
            'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        ]);
        self::assertSame(2432232314, Webhook::verifyPayload(self::PAYLOAD, $headers, self::SECRET)['test']);
    }

    /** @return array<string, array{0: callable(array<string, string>): array<string, string>}> */
    public static function invalidCases(): array
    {
        return [
            'missing id' => [static function (array $h): array { unset($h['webhook-id']); return $h; }],
            'missing timestamp' => [static function (array $h): array { unset($h['webhook-timestamp']); return $h; }],
            'invalid timestamp' => [static function (array $h): array { $h['webhook-timestamp'] = 'hello'; return $h; }],
            'missing signature' => [static function (array $h): array { unset($h['webhook-signature']); return $h; }],
            'invalid signature' => [static function (array $h): array { $h['webhook-signature'] = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA='; return $h; }],
        ];
    }

    /**
     * @dataProvider invalidCases
     * @param callable(array<string, string>): array<string, string> $mutate
     */
    public function testInvalidHeadersRaise(callable $mutate): void
    {
        $this->expectException(SignatureVerificationException::class);
        Webhook::verifyPayload(self::PAYLOAD, $mutate(self::headers()), self::SECRET);
    }

    public function testOldTimestampFails(): void
    {
        $this->expectException(SignatureVerificationException::class);
        Webhook::verifyPayload(self::PAYLOAD, self::headers(time() - self::TOLERANCE - 1), self::SECRET);
    }

    public function testNewTimestampFails(): void
    {
        $this->expectException(SignatureVerificationException::class);
        Webhook::verifyPayload(self::PAYLOAD, self::headers(time() + self::TOLERANCE + 1), self::SECRET);
    }

    public function testAnyOfSeveralSecretsVerifiesDuringARotation(): void
    {
        $old = 'whsec_' . base64_encode(random_bytes(24));
        self::assertSame(2432232314, Webhook::verifyPayload(self::PAYLOAD, self::headers(), [$old, self::SECRET])['test']);
        $this->expectException(SignatureVerificationException::class);
        Webhook::verifyPayload(self::PAYLOAD, self::headers(), [$old]);
    }

    public function testHeadersFromServerVariablesAndTypedEvent(): void
    {
        $secret = 'whsec_' . base64_encode(random_bytes(24));
        $body = '{"id":"evt_1","type":"payin.completed","createdAt":"2026-01-01T00:00:00Z","livemode":false,"data":{"id":"pr_1","reference":"o-1","status":"success","amount":5000}}';
        $ts = time();
        $server = [
            'HTTP_WEBHOOK_ID' => 'msg_1',
            'HTTP_WEBHOOK_TIMESTAMP' => (string) $ts,
            'HTTP_WEBHOOK_SIGNATURE' => Webhook::sign($secret, 'msg_1', $ts, $body),
        ];
        $event = Webhook::verify($body, $server, $secret);
        self::assertInstanceOf(PayinCompletedEvent::class, $event);
        self::assertSame('o-1', $event->data?->reference);
        self::assertSame(5000, $event->data?->amount);

        $wordpress = ['webhook_id' => ['msg_1'], 'webhook_timestamp' => [(string) $ts], 'webhook_signature' => [$server['HTTP_WEBHOOK_SIGNATURE']]];
        self::assertInstanceOf(PayinCompletedEvent::class, Webhook::verify($body, $wordpress, [$secret]));

        $unknown = str_replace('payin.completed', 'payin.someday', $body);
        $server['HTTP_WEBHOOK_SIGNATURE'] = Webhook::sign($secret, 'msg_1', $ts, $unknown);
        self::assertInstanceOf(Event::class, Webhook::verify($unknown, $server, $secret));
    }
}
