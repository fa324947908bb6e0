import express from 'express';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Connection } from 'mongoose';
import type { Client } from '@temporalio/client';
import { observability } from '../../src/api/observability';
import { errorHandler } from '../../src/api/problem';
import { callbackRoutes } from '../../src/api/routes/callbacks';
import { CallbackService } from '../../src/operators/callbacks';
import { CallbackReceiptStore } from '../../src/persistence/callback-receipts';
import { statementDownloadRoutes } from '../../src/api/routes/statements';
import { newId } from '../../src/domain/ids';
import { createLogger } from '../../src/infra/logger';
import { internalAccess } from '../../src/infra/metrics-server';
import { Ledger } from '../../src/ledger';
import { buildMtnConnector } from '../../src/operators/connectors/mtn/config';
import { toProviderUuid } from '../../src/operators/provider-ids';
import { connectMongo } from '../../src/persistence/mongo';
import { parseKeyRing } from '../../src/security/key-ring';
import { StatementService } from '../../src/services/statement-service';
import { StatementStore } from '../../src/statements/store';

// No credential of a URL reaches a log line: a statement's download link (its `signature` opens a
// merchant's financial data for 15 minutes) and an MTN callback URL (its `sig` is that transaction's
// callback credential), fetched for real through the API's access log, and quoted by a log message.

const MTN_SECRET = 'mtn-callback-secret-for-the-log-test-0123456789';

describe('credentials in URLs never reach the logs', () => {
  let conn: Connection;
  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    conn = await connectMongo(`${base}/t_${randomBytes(6).toString('hex')}`);
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('redacts a statement link signature and an MTN callback sig, in the access log and in messages', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      {},
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );

    // A ready statement and its real download link.
    const store = StatementStore.on(conn);
    await store.init();
    const statements = new StatementService({
      statements: store,
      ledger: Ledger.on(conn),
      temporal: null as unknown as Client, // not reached: no statement is started here
      taskQueue: 'unused',
      keys: parseKeyRing(`k1:${'5a'.repeat(32)}`),
      linkTtlMs: 15 * 60_000,
    });
    const id = newId('st');
    await store.insertOrGet({
      id,
      merchantId: 'mer_0123456789abcdef',
      accountId: newId('acc'),
      currency: 'XOF',
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-02-01T00:00:00Z'),
      format: 'csv',
      status: 'pending',
      createdAt: new Date(),
      readyAt: null,
      openingBalance: null,
      closingBalance: null,
      entryCount: null,
      chunks: null,
      failure: null,
    });
    const generation = 'g1';
    const chunks = await store.putContent(id, 'date,amount\n', generation);
    await store.decide(id, {
      status: 'ready',
      generation,
      readyAt: new Date(),
      openingBalance: 0,
      closingBalance: 0,
      entryCount: 0,
      chunks,
    });
    const ready = (await store.findById(id))!;

    // MTN's callback URL for one of our payins, as the connector writes it in X-Callback-Url.
    const mtn = buildMtnConnector(
      {
        MTN_CALLBACK_SECRET: MTN_SECRET,
        MTN_CI_COLLECTION_SUBSCRIPTION_KEY: 'k',
        MTN_CI_COLLECTION_API_USER: 'u',
        MTN_CI_COLLECTION_API_KEY: 'p',
      },
      { timeoutMs: 1000, callbackBaseUrl: 'https://pay.example' },
    )!;
    const payin = newId('pr');
    const ref = toProviderUuid(payin);
    const sig = createHmac('sha256', MTN_SECRET)
      .update(`mtn-callback:v1:collection:${ref}`)
      .digest('base64url');

    const app = express();
    app.use(observability(logger, internalAccess(undefined)));
    app.use(statementDownloadRoutes(statements));
    app.use(
      callbackRoutes(
        new CallbackService({
          connectors: new Map([['mtn', mtn]]),
          simulatorSecrets: {},
          receipts: CallbackReceiptStore.on(conn),
          transactions: { findById: () => Promise.resolve(null) },
          refunds: { findById: () => Promise.resolve(null) },
          temporal: null as unknown as Client, // not reached: the transaction is unknown
          perTransactionPerMinute: 0,
        }),
      ),
    );
    app.use(errorHandler((err) => logger.error({ err }, 'unhandled error')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const link = statements.downloadLink(ready, origin).url;
    const signature = new URL(link).searchParams.get('signature')!;
    const callbackPath = `/provider-callbacks/mtn?kind=collection&ref=${ref}&sig=${sig}`;
    try {
      const download = await fetch(link);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('date,amount\n');
      const callback = await fetch(`${origin}${callbackPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ externalId: payin, status: 'SUCCESSFUL' }),
      });
      expect(callback.status).toBe(202);
      // Other code quoting such a URL, in a message or in a field.
      logger.warn(
        { url: link, nested: { callbackUrl: `https://pay.example${callbackPath}` } },
        `fetched ${link}`,
      );
    } finally {
      await new Promise((r) => server.close(r));
    }

    const log = lines.join('');
    // The requests were logged, with what may be logged of them...
    expect(log).toContain(`/v1/statements/${id}/download?expires=`);
    expect(log).toContain(`/provider-callbacks/mtn?kind=collection&ref=${ref}&sig=[redacted]`);
    expect(log).toContain('signature=[redacted]');
    // ... and none of the credentials.
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(log).not.toContain(signature);
    expect(log).not.toContain(sig);
  });
});
