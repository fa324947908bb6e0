// `npm start`: the whole stack in one process tree. Starts FerretDB and the Temporal dev server
// (with its Web UI) unless MONGODB_URI / TEMPORAL_ADDRESS point elsewhere, then the worker and the API.
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { startTracing } from '../infra/tracing';
import { startFerretDB, startTemporalDevServer, type LocalServer } from '../infra/local-servers';
import { onShutdown, runApi, runWorker, type Running } from './run';
import { startSimulator } from '../simulator/server';
import { installWorkerRuntime } from './temporal/runtime';
import { EncryptionCodec } from '../temporal/codec';
import { embeddedUiOrigins, startCodecServer } from '../api/codec-server';
import { connectMongo } from '../persistence/mongo';
import { seedDashboard, SANDBOX_OWNER_EMAIL } from './dashboard-seed';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { role: 'embedded' });
  startTracing(config, 'embedded');
  const dataDir = resolve(config.DATA_DIR);
  const servers: LocalServer[] = [];
  const parts: Running[] = [];
  const stop = async () => {
    for (const p of parts.reverse()) await p.stop();
    for (const s of servers.reverse()) await s.stop();
  };
  onShutdown(logger, stop);

  try {
    let mongoUri = config.MONGODB_URI;
    if (!mongoUri) {
      servers.push(
        await startFerretDB({ dataDir: `${dataDir}/ferretdb`, port: config.EMBEDDED_MONGODB_PORT }),
      );
      mongoUri = `mongodb://127.0.0.1:${config.EMBEDDED_MONGODB_PORT}/payments`;
    }
    // The codec server, so the UI (and `temporal --codec-endpoint`) shows histories in clear. On
    // loopback, and open to this machine outside production: the UI in the browser cannot send
    // a bearer token (docs/decisions/security/codec-server.md).
    const codecServer = await startCodecServer({
      codec: new EncryptionCodec(config.PAYLOAD_CODEC_KEYS),
      tokens: config.CODEC_SERVER_TOKENS ?? [],
      origins: config.CODEC_SERVER_ORIGINS ?? embeddedUiOrigins(config.EMBEDDED_TEMPORAL_UI_PORT),
      openToLoopback: config.NODE_ENV !== 'production',
      logger: logger.child({ component: 'codec-server' }),
      host: '127.0.0.1',
      port: config.CODEC_SERVER_PORT,
    });
    parts.push(codecServer);
    let temporalAddress = config.TEMPORAL_ADDRESS;
    if (!temporalAddress) {
      servers.push(
        await startTemporalDevServer({
          dataDir: `${dataDir}/temporal`,
          port: config.EMBEDDED_TEMPORAL_PORT,
          uiPort: config.EMBEDDED_TEMPORAL_UI_PORT,
          namespace: config.TEMPORAL_NAMESPACE,
          uiCodecEndpoint: codecServer.url,
        }),
      );
      temporalAddress = `127.0.0.1:${config.EMBEDDED_TEMPORAL_PORT}`;
    }
    let operatorUrl = config.OPERATOR_BASE_URL;
    if (!operatorUrl) {
      // The sandbox operator, a separate HTTP service like a real one; it calls this API back.
      const sim = await startSimulator({
        port: config.EMBEDDED_SIMULATOR_PORT,
        callbackSecrets: config.OPERATOR_CALLBACK_SECRETS,
        callbackBaseUrl: config.OPERATOR_CALLBACK_BASE_URL ?? `http://127.0.0.1:${config.PORT}`,
        dataDir: `${dataDir}/simulator`,
      });
      parts.push(sim);
      operatorUrl = sim.url;
      config.OPERATOR_BASE_URL = operatorUrl;
    }
    const urls = { mongo: mongoUri, temporal: temporalAddress };
    // One process runs both: the API's /metrics includes the worker's series.
    installWorkerRuntime({ logger, metricsAddress: config.TEMPORAL_METRICS_ADDRESS });
    parts.push(await runWorker(config, urls));
    parts.push(await runApi(config, logger, urls));
    // The dashboard's first sign-in: a sandbox merchant and, until it has an owner, a one-time link.
    const seedConn = await connectMongo(mongoUri);
    const baseUrl = config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
    const seed = await seedDashboard(seedConn, config.DATA_ENCRYPTION_KEYS, baseUrl).finally(() =>
      seedConn.close(),
    );
    const dashboardLines = [
      `  Dashboard    ${baseUrl}/dashboard  (sandbox merchant ${seed.merchantId})`,
      ...(seed.link
        ? [
            `  First sign-in (owner ${SANDBOX_OWNER_EMAIL}, one-time link, 7 days):`,
            `               ${seed.link}`,
          ]
        : []),
      ...(seed.credentials
        ? [
            `  Test keys    api_key ${seed.credentials.apiKey}  api_client ${seed.credentials.apiClient}  (shown once)`,
          ]
        : []),
    ];
    const ui = config.TEMPORAL_ADDRESS
      ? '(external Temporal)'
      : `http://127.0.0.1:${config.EMBEDDED_TEMPORAL_UI_PORT}`;
    console.log(
      [
        '',
        'momo-payments is running',
        `  API          http://127.0.0.1:${config.PORT}  (health: /health/ready)`,
        `  Temporal UI  ${ui}`,
        `  Codec server ${codecServer.url}  (decodes history payloads for the UI and \`temporal --codec-endpoint\`)`,
        `  Operators    ${operatorUrl}  (sandbox simulator unless OPERATOR_BASE_URL is set)`,
        `  Temporal     ${temporalAddress}`,
        `  MongoDB      ${mongoUri}`,
        ...dashboardLines,
        'Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
  } catch (err) {
    await stop();
    throw err;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
