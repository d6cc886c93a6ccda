import fp from 'fastify-plugin';
import { HealthResponse, ReadinessResponse, VersionResponse, type VersionInfo } from './system-schemas.js';
import type { Readiness } from './readiness.js';

export interface SystemRoutesOptions {
  version: VersionInfo;
  readiness: Readiness;
  readinessTimeoutMs: number;
}

/** `/healthz` (the process answers), `/readyz` (its dependencies answer), `/version`. */
export const systemRoutes = fp<SystemRoutesOptions>(
  async (app, { version, readiness, readinessTimeoutMs }) => {
    app.get('/healthz', { schema: { tags: ['system'], summary: 'Liveness', response: { 200: HealthResponse } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get(
      '/readyz',
      {
        schema: {
          tags: ['system'],
          summary: 'Readiness: every dependency answers (degraded: ready, working in a reduced mode)',
          response: { 200: ReadinessResponse, 503: ReadinessResponse },
        },
      },
      async (_request, reply) => {
        const { failing, degraded } = await readiness.report(readinessTimeoutMs);
        if (failing.length > 0) return reply.code(503).send({ status: 'not-ready', failing, degraded });
        return { status: 'ready' as const, failing: [], degraded };
      },
    );

    app.get('/version', { schema: { tags: ['system'], summary: 'Build and API version', response: { 200: VersionResponse } } }, async () => version);
  },
  { name: 'server-kit-system-routes' },
);
