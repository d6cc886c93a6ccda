import { errorResponses, type App } from '@playstack/server-kit';
import { HealthViewResponse } from './health-schemas.js';
import { healthView } from './health-view.js';

/** `/api/v1/health`: how ingestion, storage and the database are doing. */
export async function healthRoutes(app: App): Promise<void> {
  app.addHook('onRequest', app.requireSession);
  app.get(
    '/api/v1/health',
    {
      schema: {
        tags: ['health'],
        security: [{ session: [] }],
        summary: 'Ingestion, storage, retention and database status',
        description: 'Takes no parameters. Answers 200 even when the database is unreachable, with the sections that need it null.',
        response: { 200: HealthViewResponse, ...errorResponses(401) },
      },
    },
    async () => healthView(app.telemetry, app.clock.now(), app.retention.policy),
  );
}
