export { buildApp, apiVersion, type BuildOptions } from './app.js';
export { observabilityConfigSchema, loadObservabilityConfig, type ObservabilityConfig } from './config.js';
