import { runService } from '@playstack/server-kit';
import { buildApp } from './app.js';
import { loadObservabilityConfig } from './config.js';

await runService(async () => {
  const config = loadObservabilityConfig();
  const app = await buildApp(config);
  return {
    app,
    options: { name: 'observability-service', port: config.OBSERVABILITY_PORT, host: config.HOST, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS },
  };
});
