<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Integration;

use MomoPayments\Exception\SignatureVerificationException;
use MomoPayments\Models\PayinCompletedEvent;
use MomoPayments\Models\TransactionRecord;
use MomoPayments\Models\WebhookEndpointWithSecret;
use MomoPayments\Tests\Support\Receiver;
use MomoPayments\Tests\Support\StackTestCase;
use MomoPayments\Webhook;

/**
 * A payin's webhook received by a PHP receiver (php -S) and verified by the SDK; then the endpoint's
 * other operations: read, list, test event, deliveries, redeliver, replay, rotate, enable, delete.
 */
final class WebhooksTest extends StackTestCase
{
    public function testAPayinWebhookIsReceivedAndVerifiedThenTheEndpointIsManaged(): void
    {
        $client = self::client();
        $receiver = new Receiver();
        $endpoint = null;
        try {
            $endpoint = $client->webhookEndpoints->create([
                'url' => $receiver->url,
                'eventTypes' => ['payin.completed'],
                'description' => 'php sdk test',
            ]);
            self::assertInstanceOf(WebhookEndpointWithSecret::class, $endpoint);
            self::assertStringStartsWith('whsec_', (string) $endpoint->secret);
            $id = (string) $endpoint->id;

            $ref = self::ref('hook');
            $client->payins->createDirect([
                'reference' => $ref,
                'sandboxScenario' => 'completed',
                'payin' => ['amount' => 4200, 'msisdn' => self::MSISDN_CI, 'provider' => 'MTN', 'country' => 'CI'],
                'action' => self::action(),
            ]);
            $delivery = self::eventually(
                static function () use ($receiver, $ref) {
                    foreach ($receiver->received() as $r) {
                        if (str_contains($r['body'], $ref)) {
                            return $r;
                        }
                    }
                    return null;
                },
                static fn ($r) => $r !== null,
                45,
                'the payin.completed delivery',
            );
            // The one call a merchant writes: raw body, headers, its secrets (an old one first, as during a rotation).
            $old = 'whsec_' . base64_encode(random_bytes(24));
            $event = Webhook::verify($delivery['body'], $delivery['headers'], [$old, (string) $endpoint->secret]);
            self::assertInstanceOf(PayinCompletedEvent::class, $event);
            self::assertSame('payin.completed', $event->type);
            self::assertInstanceOf(TransactionRecord::class, $event->data);
            self::assertSame($ref, $event->data->reference);
            self::assertSame(4200, $event->data->amount);
            try {
                Webhook::verify($delivery['body'] . ' ', $delivery['headers'], (string) $endpoint->secret);
                self::fail('a changed body must not verify');
            } catch (SignatureVerificationException) {
            }

            // The endpoint's operations.
            self::assertSame($id, $client->webhookEndpoints->retrieve($id)->id);
            self::assertContains($id, array_map(static fn ($e) => $e->id, $client->webhookEndpoints->list()->data ?? []));
            $test = $client->webhookEndpoints->sendTest($id, ['type' => 'payin.completed']);
            self::assertTrue($test->succeeded);
            $deliveries = $client->webhookEndpoints->listDeliveries($id, ['limit' => 10]);
            self::assertNotEmpty($deliveries->data);

            $redelivery = $client->events->redeliver((string) $event->id, ['endpointId' => $id]);
            self::assertSame($event->id, $redelivery->eventId);
            // The redelivery is a second delivery: walked one per page, the deliveries span two pages.
            self::eventually(
                static fn () => iterator_to_array($client->webhookEndpoints->deliveriesAutoPagingIterator($id, ['limit' => 1]), false),
                static fn (array $all) => count($all) >= 2,
                15,
                'the redelivery',
            );
            $replay = $client->webhookEndpoints->replay($id, [
                'from' => gmdate('Y-m-d\TH:i:s\Z', time() - 600),
                'to' => gmdate('Y-m-d\TH:i:s\Z', time() + 60),
                'onlyFailed' => false,
                'dryRun' => true,
            ]);
            self::assertTrue($replay->dryRun);
            self::assertGreaterThanOrEqual(1, $replay->count);

            $rotated = $client->webhookEndpoints->rotateSecret($id, ['overlapSeconds' => 60]);
            self::assertStringStartsWith('whsec_', (string) $rotated->secret);
            self::assertNotSame($endpoint->secret, $rotated->secret);
            self::assertSame('enabled', $client->webhookEndpoints->enable($id)->status);
        } finally {
            if ($endpoint !== null) {
                $client->webhookEndpoints->delete((string) $endpoint->id);
            }
            $receiver->stop();
        }
    }
}
