import { runService } from '@playstack/server-kit';
import { buildApp } from './app.js';
import { loadGameConfig } from './config.js';

await runService(async () => {
  const config = loadGameConfig();
  const app = await buildApp(config);
  return { app, options: { name: 'game-service', port: config.GAME_PORT, host: config.HOST, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS } };
});
