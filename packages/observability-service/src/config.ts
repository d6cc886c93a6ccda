import { Type, type Static } from '@sinclair/typebox';
import { commonConfigProperties, configSchema, loadConfig, Port } from '@playstack/server-kit';

/** Every environment variable the observability service reads. */
export const observabilityConfigSchema = configSchema({
  ...commonConfigProperties,
  OBSERVABILITY_PORT: Port(8081, 'port of the observability service'),
  OBSERVABILITY_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 5 * 1024 * 1024, description: 'ingest body limit in bytes (after decompression)' }),
  SERVICE_API_KEY: Type.Optional(Type.String({ minLength: 16, description: 'legacy ingestion key (16+ chars); unset disables it' })),
});

export type ObservabilityConfig = Static<typeof observabilityConfigSchema>;

/** Reads and validates the observability service's configuration. */
export function loadObservabilityConfig(env: Record<string, string | undefined> = process.env): Readonly<ObservabilityConfig> {
  return loadConfig(observabilityConfigSchema, env);
}
