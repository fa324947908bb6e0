<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Integration;

use MomoPayments\Exception\ConflictException;
use MomoPayments\Exception\InvalidRequestException;
use MomoPayments\Exception\NotFoundException;
use MomoPayments\Models\PayoutBatch;
use MomoPayments\Models\RefundRecord;
use MomoPayments\Models\StandardPayoutResult;
use MomoPayments\Models\TransactionRecord;
use MomoPayments\Tests\Support\StackTestCase;

/** Collect, pay out (every shape), refund and the sandbox helpers, through the SDK against the stack. */
final class PaymentsTest extends StackTestCase
{
    public function testDirectPayinCompletesThenIsRefunded(): void
    {
        $client = self::client();
        $ref = self::ref('order');
        $payin = $client->payins->createDirect([
            'reference' => $ref,
            'sandboxScenario' => 'completed',
            'customerName' => 'Test Customer',
            'payin' => ['amount' => 5000, 'msisdn' => self::MSISDN_CI, 'provider' => 'MTN', 'country' => 'CI'],
            'action' => self::action(),
            'metadata' => ['orderId' => $ref],
        ]);
        self::assertInstanceOf(TransactionRecord::class, $payin);
        self::assertSame($ref, $payin->reference);
        self::assertSame('payin', $payin->type);
        self::assertSame($payin->reference, $payin['reference']);

        $done = self::eventually(
            static fn () => $client->payins->retrieve($ref),
            static fn (TransactionRecord $p) => in_array($p->status, ['success', 'completed'], true),
            45,
            'the payin to complete',
        );
        self::assertSame(5000, $done->amount);

        $refund = $client->refunds->create($ref, [
            'amount' => 1000,
            'reason' => 'Returned',
            'externalReference' => self::ref('return'),
            'sandboxScenario' => 'pending',
        ], self::PATIENT);
        self::assertInstanceOf(RefundRecord::class, $refund);
        self::assertSame($ref, $refund->originalReference);
        $settled = $client->sandbox->settleRefund((string) $refund->reference, ['outcome' => 'completed'], self::PATIENT);
        self::assertInstanceOf(RefundRecord::class, $settled);
        $final = self::eventually(
            static fn () => $client->refunds->retrieve((string) $refund->reference),
            static fn (RefundRecord $r) => $r->status === 'completed',
            45,
            'the refund to complete',
        );
        self::assertSame(1000, $final->amount);
    }

    public function testSandboxHelpersSettleAPendingPayinAndFindAmbiguousFunds(): void
    {
        $client = self::client();
        $ref = self::ref('order');
        $client->payins->createDirect([
            'reference' => $ref,
            'sandboxScenario' => 'pending',
            'payin' => ['amount' => 2500, 'msisdn' => self::MSISDN_CI, 'provider' => 'MTN', 'country' => 'CI'],
            'action' => self::action(),
        ]);
        $failed = $client->sandbox->settlePayin($ref, ['outcome' => 'failed', 'failureCode' => 'OPERATOR_TIMEOUT'], self::PATIENT);
        self::assertSame($ref, $failed->reference);
        $corrected = $client->sandbox->payinCollected($ref, [], self::PATIENT);
        self::assertSame($ref, $corrected->reference);
        try {
            $client->sandbox->settlePayin($ref, ['outcome' => 'completed'], self::PATIENT);
        } catch (ConflictException $e) {
            self::assertSame('ALREADY_FINAL', $e->errorCode);
        }
    }

    public function testSessionPayinGivesACheckoutLink(): void
    {
        $client = self::client();
        $ref = self::ref('session');
        $session = $client->payins->createSession([
            'reference' => $ref,
            'amount' => 3000,
            'msisdn' => self::MSISDN_CI,
            'country' => 'CI',
            'customerName' => 'Test Customer',
            'action' => self::action(),
        ]);
        self::assertSame($ref, $session->reference);
        self::assertIsString($session->paymentUrl);
        self::assertStringContainsString('/checkout/', $session->paymentUrl);
        self::assertSame($session->id, $client->payins->retrieve($ref)->id);
    }

    public function testDirectPayoutSettledAndCancelOfAPendingOne(): void
    {
        $client = self::client();
        $ref = self::ref('payout');
        $payout = $client->payouts->createDirect([
            'reference' => $ref,
            'sandboxScenario' => 'pending',
            'customerName' => 'Test Payee',
            'payout' => ['amount' => 1000, 'msisdn' => self::PAYEE_CI, 'provider' => 'ORANGE', 'country' => 'CI'],
        ]);
        self::assertInstanceOf(TransactionRecord::class, $payout);
        $client->sandbox->settlePayout($ref, ['outcome' => 'completed'], self::PATIENT);
        $done = self::eventually(
            static fn () => $client->payouts->retrieveDirect($ref),
            static fn (TransactionRecord $p) => in_array($p->status, ['success', 'completed'], true),
            45,
            'the payout to complete',
        );
        self::assertSame($ref, $done->reference);

        // A payout is cancellable only while held (not yet with the operator): the sandbox sends at once,
        // so the answer is either the record reversed or 409 PAYOUT_NOT_CANCELLABLE; both are typed.
        $other = self::ref('payout');
        $client->payouts->createDirect([
            'reference' => $other,
            'sandboxScenario' => 'pending',
            'payout' => ['amount' => 1000, 'msisdn' => self::PAYEE_CI, 'provider' => 'ORANGE', 'country' => 'CI'],
        ]);
        try {
            $cancelled = $client->payouts->cancelDirect($other, self::PATIENT);
            self::assertSame('reversed', $cancelled->status);
        } catch (ConflictException $e) {
            self::assertSame('PAYOUT_NOT_CANCELLABLE', $e->errorCode);
            self::assertSame(409, $e->status);
        }
    }

    public function testStandardPayoutBothShapesAndItsCancel(): void
    {
        $client = self::client();
        $accounts = $client->accounts->list()->data ?? [];
        $xof = null;
        foreach ($accounts as $a) {
            if ($a->currency === 'XOF') {
                $xof = $a;
            }
        }
        self::assertNotNull($xof, 'the merchant has an XOF account');

        $ref = self::ref('std');
        $byNumber = $client->payouts->create([
            'reference' => $ref,
            'amount' => 1200,
            'msisdn' => self::PAYEE_CI,
            'country' => 'CI',
            'customerName' => 'Test Payee',
        ]);
        self::assertInstanceOf(StandardPayoutResult::class, $byNumber);
        self::assertSame($ref, $byNumber->customerReference ?? $byNumber->reference);

        $ref2 = self::ref('std');
        $fromAccount = $client->payouts->create([
            'reference' => $ref2,
            'accountId' => $xof->id,
            'amount' => 1300,
            'msisdn' => self::PAYEE_CI,
            'country' => 'CI',
            'customerName' => 'Test Payee',
            'provider' => 'ORANGE',
            'sandboxScenario' => 'pending',
        ]);
        self::assertInstanceOf(StandardPayoutResult::class, $fromAccount);
        $read = $client->payouts->retrieve($ref2);
        self::assertSame($fromAccount->reference, $read->reference);
        try {
            self::assertSame('reversed', $client->payouts->cancel($ref2, self::PATIENT)->status);
        } catch (ConflictException $e) {
            self::assertSame('PAYOUT_NOT_CANCELLABLE', $e->errorCode);
        }
    }

    public function testBulkPayout(): void
    {
        $client = self::client();
        $items = [];
        for ($i = 0; $i < 3; $i++) {
            $items[] = ['reference' => self::ref("bulk{$i}"), 'amount' => 500 + $i, 'msisdn' => self::PAYEE_CI, 'country' => 'CI', 'customerName' => 'Test Payee'];
        }
        $batch = $client->payoutBatches->create(['items' => $items]);
        self::assertInstanceOf(PayoutBatch::class, $batch);
        self::assertStringStartsWith('pb_', (string) $batch->id);
        self::assertSame(3, $batch->summary['items'] ?? null);
        $done = self::eventually(
            static fn () => $client->payoutBatches->retrieve((string) $batch->id),
            static fn (PayoutBatch $b) => $b->status === 'completed',
            45,
            'the batch to complete',
        );
        self::assertSame($batch->id, $done->id);
    }

    public function testProvidersAndRecipientCheck(): void
    {
        $client = self::client();
        $providers = $client->providers->list(['country' => 'CI'])->providers ?? [];
        self::assertNotEmpty($providers);
        self::assertContains('MTN', array_column($providers, 'code'));
        $prediction = $client->providers->predict(['msisdn' => self::MSISDN_CI]);
        self::assertSame('CI', $prediction->country);
        $check = $client->providers->checkRecipient(['msisdn' => '+2250500009912', 'country' => 'CI']);
        self::assertSame('CI', $check->country);
        self::assertTrue($check->checked);
        self::assertNull($check->holderName);
    }

    public function testProblemsAreTypedAndLocalized(): void
    {
        $client = self::client(['acceptLanguage' => 'fr']);
        try {
            $client->payins->createDirect(['reference' => self::ref('bad'), 'action' => self::action()]);
            self::fail('expected a 400');
        } catch (InvalidRequestException $e) {
            self::assertSame(400, $e->status);
            self::assertSame('VALIDATION_ERROR', $e->errorCode);
            self::assertSame('Un ou plusieurs champs sont invalides.', $e->detail);
            self::assertContains('payin', array_column($e->fieldErrors, 'path'));
            self::assertNotNull($e->requestId);
        }
        try {
            $client->payins->retrieve('no-such-' . bin2hex(random_bytes(4)), ['acceptLanguage' => 'en']);
            self::fail('expected a 404');
        } catch (NotFoundException $e) {
            self::assertSame(404, $e->status);
            self::assertStringContainsString('/docs/errors#', (string) $e->type);
        }
    }
}
