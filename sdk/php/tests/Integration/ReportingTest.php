<?php

declare(strict_types=1);

namespace MomoPayments\Tests\Integration;

use MomoPayments\Models\Account;
use MomoPayments\Models\Event;
use MomoPayments\Models\Statement;
use MomoPayments\Models\TransactionRecord;
use MomoPayments\Models\TransactionPage;
use MomoPayments\Tests\Support\StackTestCase;

/** Transactions search with auto-pagination, accounts and their entries, statements and their download, events. */
final class ReportingTest extends StackTestCase
{
    private static function xofAccount(): Account
    {
        foreach (self::client()->accounts->list()->data ?? [] as $a) {
            if ($a->currency === 'XOF') {
                return $a;
            }
        }
        self::fail('no XOF account');
    }

    public function testTransactionsAutoPaginationWalksEveryPage(): void
    {
        $client = self::client();
        $tag = bin2hex(random_bytes(4));
        $refs = [];
        for ($i = 0; $i < 5; $i++) {
            $ref = self::ref("page{$i}");
            $refs[] = $ref;
            $client->payins->createDirect([
                'reference' => $ref,
                'payin' => ['amount' => 100 + $i, 'msisdn' => self::MSISDN_CI, 'provider' => 'MTN', 'country' => 'CI'],
                'action' => self::action(),
                'metadata' => ['batchTag' => $tag],
            ]);
        }
        $first = $client->transactions->list(['limit' => 2, 'metadata' => ['batchTag' => $tag]]);
        self::assertInstanceOf(TransactionPage::class, $first);
        self::assertCount(2, $first->data ?? []);
        self::assertContainsOnlyInstancesOf(TransactionRecord::class, $first->data ?? []);
        self::assertNotNull($first->nextCursor);

        $seen = [];
        foreach ($client->transactions->autoPagingIterator(['limit' => 2, 'metadata' => ['batchTag' => $tag]]) as $tx) {
            self::assertInstanceOf(TransactionRecord::class, $tx); // each item as the model of its type
            $seen[] = $tx->reference;
        }
        sort($seen);
        sort($refs);
        self::assertSame($refs, $seen, 'three pages of 2, 2 and 1 give the five payins once each');
    }

    public function testAccountsAndTheirEntries(): void
    {
        $client = self::client();
        $account = self::xofAccount();
        $read = $client->accounts->retrieve((string) $account->id);
        self::assertSame($account->id, $read->id);
        self::assertFalse($read->livemode);
        $page = $client->accounts->listEntries((string) $account->id, ['limit' => 3]);
        self::assertNotEmpty($page->data, 'the funded account has entries');
        $n = 0;
        foreach ($client->accounts->entriesAutoPagingIterator((string) $account->id, ['limit' => 50]) as $entry) {
            self::assertSame($account->id, $entry['accountId']);
            if (++$n >= 60) {
                break; // two pages are enough to prove the walk
            }
        }
        self::assertGreaterThan(0, $n);
    }

    public function testStatementIsCreatedAndDownloaded(): void
    {
        $client = self::client();
        $account = self::xofAccount();
        $statement = $client->statements->create([
            'accountId' => $account->id,
            'from' => gmdate('Y-m-d\TH:i:s\Z', time() - 86400),
            'to' => gmdate('Y-m-d\TH:i:s\Z', time() + 60),
            'format' => 'csv',
        ]);
        self::assertInstanceOf(Statement::class, $statement);
        $ready = self::eventually(
            static fn () => $client->statements->retrieve((string) $statement->id),
            static fn (Statement $s) => $s->status !== 'pending',
            45,
            'the statement to be ready',
        );
        self::assertSame('ready', $ready->status);
        $csv = $client->statements->download($ready);
        self::assertNotSame('', $csv);
        self::assertGreaterThan(1, count(explode("\n", trim($csv))), 'a header and entries');
    }

    public function testEventsListRetrieveAndPaginate(): void
    {
        $client = self::client();
        $page = $client->events->list(['limit' => 5]);
        self::assertNotEmpty($page->data);
        $first = $page->data[0];
        self::assertInstanceOf(Event::class, $first);
        self::assertSame($first->id, $client->events->retrieve((string) $first->id)->id);
        $n = 0;
        foreach ($client->events->autoPagingIterator(['limit' => 5]) as $event) {
            self::assertInstanceOf(Event::class, $event);
            if (++$n >= 12) {
                break;
            }
        }
        self::assertSame(12, $n);
    }

    public function testStreamTokenAndStreamUrl(): void
    {
        $client = self::client();
        $token = $client->events->createToken();
        self::assertStringStartsWith('wst_', (string) $token->token);
        $url = $client->events->eventStreamUrl((string) $token->token);
        self::assertStringStartsWith('ws', $url);
        self::assertStringContainsString('/v1/ws?token=wst_', $url);
    }
}
