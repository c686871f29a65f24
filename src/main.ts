/** Starts the service on the configured port (embedded storage unless EVENTSTORE_URL / MONGO_URL are set). */
import { Logger } from '@nestjs/common';
import { createApp } from './app.js';
import { loadConfig } from './platform/config.js';
import { describeStorage } from './platform/storage.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp({ config });
  await app.listen(config.port, config.host);
  Logger.log(`listening on http://${config.host}:${config.port} (${describeStorage(config)}); OpenAPI at /docs`, 'Bootstrap');
}

main().catch((error) => {
  Logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), 'Bootstrap');
  process.exit(1);
});
