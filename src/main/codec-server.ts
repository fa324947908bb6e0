// Entry point of the codec server (node dist/src/main/codec-server.js): decodes workflow payloads
// for the Temporal UI and the `temporal` CLI (docs/operations.md, "Reading workflow histories").
// It needs only the codec keys and its own settings, none of the payment service's.
import { codecServerRefusals, ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { EncryptionCodec } from '../temporal/codec';
import { embeddedUiOrigins, startCodecServer } from '../api/codec-server';
import { onShutdown } from './run';

async function main(): Promise<void> {
  const config = loadConfig(process.env, codecServerRefusals);
  const logger = createLogger(config.LOG_LEVEL, { role: 'codec-server' });
  const running = await startCodecServer({
    codec: new EncryptionCodec(config.PAYLOAD_CODEC_KEYS),
    tokens: config.CODEC_SERVER_TOKENS ?? [],
    origins: config.CODEC_SERVER_ORIGINS ?? embeddedUiOrigins(config.EMBEDDED_TEMPORAL_UI_PORT),
    // Tokens only, except in development (production refuses to start without them).
    openToLoopback: config.NODE_ENV === 'development',
    logger,
    host: config.CODEC_SERVER_HOST,
    port: config.CODEC_SERVER_PORT,
  });
  logger.info({ url: running.url, keys: config.PAYLOAD_CODEC_KEYS.kids }, 'codec server listening');
  onShutdown(logger, () => running.stop());
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
