/** Starts the service on the configured port (embedded storage unless EVENTSTORE_URL / MONGO_URL are set). */
import { Logger } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createLogger } from './platform/observability/logging.js';
import { loadConfig, loggingConfig } from './platform/config.js';
import { StorageInUseError } from './platform/instance/instance-identity.js';
import { refuseUnsupportedNode, UnsupportedRuntimeError } from './platform/runtime.js';
import { describeStorage } from './platform/storage.js';

async function main(): Promise<void> {
  // The logger first: a setting loadConfig refuses is then reported as JSON too (docs/operations.md).
  const logger = createLogger(loggingConfig());
  Logger.overrideLogger(logger);
  const config = loadConfig();
  refuseUnsupportedNode(process.versions.node, config.eventStoreUrl !== undefined);
  const app = await createApp({ config, logger });
  await app.listen(config.port, config.host);
  // PORT=0 lets the OS pick: the line names the port actually bound.
  const { port } = app.getHttpServer().address() as AddressInfo;
  Logger.log(`listening on http://${config.host}:${port} (${describeStorage(config)}); OpenAPI at /docs`, { port }, 'Bootstrap');
  // Emails are composed with no request at hand (src/shares/share-links.ts): without a base their links name localhost.
  if (config.smtpUrl && !config.publicLinkBase && !config.publicBaseUrl) {
    Logger.warn(
      `emails go out (SMTP_URL) with links on http://localhost:${config.port}/l: set PUBLIC_LINK_BASE or PUBLIC_BASE_URL to an address recipients can open`,
      'Bootstrap',
    );
  }
}

main().catch((error) => {
  // A refusal is an operator's answer, not a fault: its message alone.
  const text =
    error instanceof StorageInUseError || error instanceof UnsupportedRuntimeError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  Logger.error(text, 'Bootstrap');
  process.exit(1);
});
