import { errorResponses } from '@playstack/server-kit';
import { ServiceSettings, ServiceSettingsParams, ServiceSettingsUpdate } from './service-settings-schemas.js';
import { serviceSettingsOf, setApdexThreshold } from './service-settings.js';
import type { ObservabilityApp } from '../database.js';

export interface ServiceSettingsRoutesOptions {
  apdexThresholdDefaultMs: number;
}

const tags = ['query'];
const security = [{ session: [] }];

/** A service's dashboard settings: read by any signed-in user, changed by any signed-in user (member or admin) with the CSRF token. */
export async function serviceSettingsRoutes(app: ObservabilityApp, options: ServiceSettingsRoutesOptions): Promise<void> {
  app.addHook('onRequest', app.requireSession);
  const defaultMs = options.apdexThresholdDefaultMs;
  const { db } = app.database;

  app.get(
    '/api/v1/services/:service/settings',
    {
      schema: {
        tags,
        security,
        summary: 'A service’s settings',
        description: 'The Apdex threshold its figures use (the default, APDEX_THRESHOLD_MS, until one is set). Any service name is accepted, seen or not.',
        params: ServiceSettingsParams,
        response: { 200: ServiceSettings, ...errorResponses(400, 401) },
      },
    },
    async (request) => serviceSettingsOf(db, request.params.service, defaultMs),
  );

  app.put(
    '/api/v1/services/:service/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Change a service’s settings',
        description: 'Sets the Apdex threshold; Apdex over any range, past data included, then uses it. Needs the session’s X-CSRF-Token (403 csrf-failed otherwise).',
        params: ServiceSettingsParams,
        body: ServiceSettingsUpdate,
        response: { 200: ServiceSettings, ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request) => setApdexThreshold(db, request.params.service, request.body.apdexThresholdMs, request.signedIn!.user.id, app.clock.now(), defaultMs),
  );
}
