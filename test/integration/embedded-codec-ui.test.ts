import { defaultPayloadConverter } from '@temporalio/common';
import { freePort } from '../../src/infra/local-servers';
import { startEmbedded, type EmbeddedStack } from '../helpers/embedded';
import { configSchema } from '../../src/config';
import { EncryptionCodec } from '../../src/temporal/codec';

// `npm start` (src/main/embedded.ts) as a user runs it, on free ports: its Temporal dev server's UI
// is given the codec server's URL, and the UI's origin (the browser) decodes with no token, so ops
// still read histories in clear in development. The external MongoDB of the test run stands in
// for the embedded FerretDB.

describe('npm start: the embedded UI decodes through the codec server', () => {
  let embedded: EmbeddedStack;
  let output = '';
  const ports = { ui: 0, codec: 0 };

  beforeAll(async () => {
    ports.ui = await freePort();
    ports.codec = await freePort();
    embedded = await startEmbedded(
      process.env,
      { NODE_ENV: 'development', MONGODB_URI: `${process.env.TEST_MONGODB_URL}/embedded_${Date.now()}` },
      { EMBEDDED_TEMPORAL_UI_PORT: ports.ui, CODEC_SERVER_PORT: ports.codec },
    );
    output = embedded.output();
  }, 120_000);

  afterAll(() => embedded?.stop(), 30_000);

  it('prints the codec server and gives the UI its URL', async () => {
    const codecUrl = `http://127.0.0.1:${ports.codec}`;
    expect(output).toContain(`Codec server ${codecUrl}`);
    const settings = (await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string };
    };
    expect(settings.Codec.Endpoint).toBe(codecUrl);
  });

  it("prints a one-time invitation link for the sandbox merchant's owner (the dashboard's first sign-in)", async () => {
    const api = /API {10}(http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
    const token = /\/dashboard\/invitations\/([A-Za-z0-9_-]{43})/.exec(output)![1]!;
    const res = await fetch(`${api}/dashboard/api/invitations/${token}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      email: 'owner@sandbox.test',
      role: 'owner',
      merchant: { name: 'Sandbox merchant' },
    });
  });

  it("answers the UI origin's preflight and decodes its request with no token", async () => {
    const origin = `http://127.0.0.1:${ports.ui}`;
    const preflight = await fetch(`http://127.0.0.1:${ports.codec}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);

    // A payload as the worker of this `npm start` seals it (the development keys).
    const codec = new EncryptionCodec(configSchema.parse({}).PAYLOAD_CODEC_KEYS);
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload({ msisdn: '+2250500000001' })]);
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(sealed!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(sealed!.data!).toString('base64'),
        },
      ],
    });
    const post = (from: string) =>
      fetch(`http://127.0.0.1:${ports.codec}/decode`, {
        method: 'POST',
        headers: { origin: from, 'content-type': 'application/json', 'x-namespace': 'default' },
        body,
      });
    const res = await post(origin);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const out = (await res.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(out.payloads[0]!.data, 'base64').toString()).toContain('+2250500000001');
    // A page of another site, in the same browser, gets nothing.
    expect((await post('https://evil.example')).status).toBe(401);
  });
});
