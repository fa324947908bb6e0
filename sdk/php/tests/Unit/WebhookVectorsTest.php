<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Unit;

use MomoPayments\Exception\InvalidWebhookSecretException;
use MomoPayments\Exception\MomoException;
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

    /**
     * The same secrets are refused by the three SDKs, before the request is looked at, with the same
     * InvalidWebhookSecretException (docs/decisions/sdks/webhook-secret-refused-unless-24-to-64-bytes.md).
     *
     * @return array<string, array{string}>
     */
    public static function refusedSecrets(): array
    {
        $b64 = static fn (int $n): string => base64_encode(str_repeat("\x07", $n));
        return [
            'empty' => [''],
            'whsec_ with nothing after' => ['whsec_'],
            'not base64' => ['whsec_not*base64!'],
            'base64 without its padding' => ['whsec_' . rtrim($b64(25), '=')],
            'base64url' => ['whsec_' . strtr(base64_encode(str_repeat("\xfb", 27)), '+/', '-_')],
            'base64 with a space' => ['whsec_ ' . $b64(24)],
            'base64 with a line break' => ['whsec_' . $b64(24) . "\n"],
            'padding alone' => ['whsec_===='],
            'decoding to 23 bytes' => ['whsec_' . $b64(23)],
            'decoding to 65 bytes' => ['whsec_' . $b64(65)],
        ];
    }

    /** @return array<string, string> a request signed with an empty HMAC key, as a forger would */
    private static function forgedWithAnEmptyKey(): array
    {
        $ts = time();
        return [
            'webhook-id' => self::MSG_ID,
            'webhook-timestamp' => (string) $ts,
            'webhook-signature' => 'v1,' . base64_encode(hash_hmac('sha256', self::MSG_ID . ".{$ts}." . self::PAYLOAD, '', true)),
        ];
    }

    /** @dataProvider refusedSecrets */
    public function testAnEmptyOrMalformedSecretIsRefused(string $secret): void
    {
        foreach ([$secret, ['whsec_' . self::SECRET, $secret]] as $secrets) {
            try {
                Webhook::verifyPayload(self::PAYLOAD, self::forgedWithAnEmptyKey(), $secrets);
                self::fail('expected an InvalidWebhookSecretException');
            } catch (InvalidWebhookSecretException $e) {
                self::assertInstanceOf(\InvalidArgumentException::class, $e); // what it threw before 1.0.1
                self::assertInstanceOf(MomoException::class, $e);
            }
        }
        $this->expectException(InvalidWebhookSecretException::class);
        Webhook::sign($secret, self::MSG_ID, 1614265330, self::PAYLOAD);
    }

    public function testTheSecretIsCheckedBeforeTheRequestAndNeverQuoted(): void
    {
        $short = base64_encode(str_repeat("\x07", 10));
        try {
            Webhook::verify('{}', [], 'whsec_' . $short);
            self::fail('expected an InvalidWebhookSecretException');
        } catch (InvalidWebhookSecretException $e) {
            self::assertStringContainsString('24 to 64 bytes', $e->getMessage());
            self::assertStringNotContainsString($short, $e->getMessage());
        }
        $this->expectException(InvalidWebhookSecretException::class);
        Webhook::verify('{}', [], []);
    }

    public function testSecretsOf24And64BytesAreAccepted(): void
    {
        foreach (['whsec_' . base64_encode(str_repeat("\x07", 24)), base64_encode(str_repeat("\x07", 24)), 'whsec_' . base64_encode(str_repeat("\x07", 64))] as $secret) {
            try {
                Webhook::verifyPayload(self::PAYLOAD, self::forgedWithAnEmptyKey(), $secret);
                self::fail('a payload signed with an empty key verified');
            } catch (SignatureVerificationException $e) {
                self::assertSame('No matching signature found', $e->getMessage());
            }
        }
    }
}
