import { runService } from '@playstack/server-kit';
import { buildApp } from './app.js';
import { loadObservabilityConfig, observabilityConfigSchema } from './config.js';
import { otlpNotReadyBody } from './otlp/otlp-not-ready.js';
import { dashboardBanner } from './users/first-user-banner.js';

await runService({
  name: 'observability-service',
  configSchema: observabilityConfigSchema,
  loadConfig: loadObservabilityConfig,
  portVariable: 'OBSERVABILITY_PORT',
  build: (config) => buildApp(config),
  banner: dashboardBanner,
  notReadyBody: otlpNotReadyBody,
});
