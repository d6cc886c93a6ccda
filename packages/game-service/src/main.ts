import { runService } from '@playstack/server-kit';
import { adminBanner } from './admin/admin-banner.js';
import { buildApp } from './app.js';
import { gameConfigSchema, loadGameConfig } from './config.js';

await runService({
  name: 'game-service',
  configSchema: gameConfigSchema,
  loadConfig: loadGameConfig,
  portVariable: 'GAME_PORT',
  build: (config) => buildApp(config),
  banner: adminBanner,
});
