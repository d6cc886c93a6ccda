export { buildApp, apiVersion, type BuildOptions } from './app.js';
export { gameConfigSchema, loadGameConfig, type GameConfig } from './config.js';
