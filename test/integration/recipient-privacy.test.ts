import express from 'express';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { observability } from '../../src/api/observability';
import { errorHandler } from '../../src/api/problem';
import { recipientRoutes } from '../../src/api/routes/recipient';
import { createLogger } from '../../src/infra/logger';
import { internalAccess } from '../../src/infra/metrics-server';
import { OperatorUnavailableError } from '../../src/operators/gateway';
import { RecipientService } from '../../src/services/recipient-service';

// No personal data in the logs of a recipient check: the route behind the API's own access logs
// (observability) and the service's failure report, logged as the wiring logs it, with one check
// answered (a name) and one whose provider is down. Neither the number nor the name may appear.

describe('recipient checks leave no personal data in logs', () => {
  it('the access log masks the number (whatever the encoding of +) and the failure report names neither', async () => {
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
    const service = new RecipientService({
      source: (_mode, msisdn, country) =>
        msisdn.endsWith('9914')
          ? Promise.reject(new OperatorUnavailableError('GET /recipients/{msisdn}: HTTP 503'))
          : Promise.resolve({ operator: 'MTN', country, active: true, holderName: 'Awa Koné' }),
      onSourceError: (info) => logger.warn(info, 'recipient check failed'),
    });
    const app = express();
    app.use(observability(logger, internalAccess(undefined)));
    app.use((req, _res, next) => {
      req.merchantId = 'mer_0123456789abcdef_test';
      next();
    });
    app.use(recipientRoutes(service, { perMinute: 0 }));
    app.use(errorHandler((err) => logger.error({ err }, 'unhandled error')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const q of [
        'msisdn=%2B2250500000001&country=CI',
        'msisdn=%2b2250500000001&country=CI',
        'msisdn=+2250500000001&country=CI',
        'msisdn=2250500009914&country=CI',
      ]) {
        const res = await fetch(`${base}/v1/providers/recipient?${q}`);
        expect(res.status).toBe(200);
      }
    } finally {
      await new Promise((r) => server.close(r));
    }
    const log = lines.join('');
    expect(log).toMatch(/recipient check failed/);
    expect(log).toMatch(/\/v1\/providers\/recipient/);
    expect(log).not.toMatch(/050000000|050000991|Awa|Kon/);
  });
});
