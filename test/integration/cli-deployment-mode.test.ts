import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connectMongo } from '../../src/persistence/mongo';
import { MerchantService } from '../../src/merchants';
import { Ledger } from '../../src/ledger';

// `accounts fund` mints sandbox money: whether it may is a property of the database (a `deployment`
// settings document recorded by the service's first start), not of the CLI's own NODE_ENV.
const bin = join(__dirname, '../../bin/payments.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, ...env }, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A database as a service started with this NODE_ENV leaves it, with one merchant. */
async function deployment(nodeEnv: 'production' | 'test') {
  const uri = `${process.env.TEST_MONGODB_URL}/clidep_${randomBytes(6).toString('hex')}`;
  const conn = await connectMongo(uri);
  // What buildApi does at start (src/main/wiring.ts): the key mode follows NODE_ENV.
  const service = MerchantService.on(conn, { keyMode: nodeEnv === 'production' ? 'live' : 'test' });
  await service.init();
  const { merchantId } = await service.createMerchant('Boutique');
  return { uri, conn, service, merchantId };
}

const fund = (uri: string, merchantId: string, nodeEnv: string) =>
  cli(['accounts', 'fund', '--merchant', merchantId, '--currency', 'XOF', '--amount', '5000', '--json'], {
    MONGODB_URI: uri,
    NODE_ENV: nodeEnv,
  });

describe('accounts fund follows the deployment mode stored with the data', () => {
  it('is refused on a live database whatever the CLI NODE_ENV, and nothing is credited', async () => {
    const live = await deployment('production');
    try {
      await expect(live.service.deploymentMode()).resolves.toBe('live');
      for (const nodeEnv of ['test', 'development']) {
        const r = await fund(live.uri, live.merchantId, nodeEnv);
        expect([nodeEnv, r.code]).toEqual([nodeEnv, 1]);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(
          /^error: accounts fund is a sandbox tool and this database is a live deployment/,
        );
        expect(r.stderr).toMatch(/^[^\n]+\n$/);
      }
      // A merchant made with money is refused in its own words, before the merchant is made.
      const created = await cli(['merchants', 'create', '--name', 'Boutique Live', '--fund', '1000'], {
        MONGODB_URI: live.uri,
        NODE_ENV: 'test',
      });
      expect(created.code).toBe(1);
      expect(created.stderr).toMatch(
        /^error: merchants create --fund is a sandbox tool and this database is a live deployment/,
      );
      // Opening the database from a non-production CLI does not turn it into a sandbox.
      await expect(live.service.deploymentMode()).resolves.toBe('live');
      const ledger = Ledger.on(live.conn);
      await ledger.init();
      expect((await ledger.mainAccount(live.merchantId, 'XOF')).balance).toBe(0);
    } finally {
      await live.conn.close();
    }
  });

  it('is allowed on a sandbox database', async () => {
    const sandbox = await deployment('test');
    try {
      await expect(sandbox.service.deploymentMode()).resolves.toBe('sandbox');
      const r = await fund(sandbox.uri, sandbox.merchantId, 'test');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ merchantId: sandbox.merchantId, balance: 5000 });
    } finally {
      await sandbox.conn.close();
    }
  });

  it('records the mode once: a sandbox start never downgrades live, a live start upgrades sandbox', async () => {
    const live = await deployment('production');
    const sandbox = await deployment('test');
    try {
      await MerchantService.on(live.conn, { keyMode: 'test' }).init();
      await expect(live.service.deploymentMode()).resolves.toBe('live');
      await MerchantService.on(sandbox.conn, { keyMode: 'live' }).init();
      await expect(sandbox.service.deploymentMode()).resolves.toBe('live');
      expect((await fund(sandbox.uri, sandbox.merchantId, 'test')).code).toBe(1);
      // A process that does not say its mode (no keyMode) records nothing.
      const fresh = await connectMongo(
        `${process.env.TEST_MONGODB_URL}/clidep_${randomBytes(6).toString('hex')}`,
      );
      const silent = MerchantService.on(fresh);
      await silent.init();
      await expect(silent.deploymentMode()).resolves.toBeNull();
      await fresh.close();
    } finally {
      await live.conn.close();
      await sandbox.conn.close();
    }
  });
});
