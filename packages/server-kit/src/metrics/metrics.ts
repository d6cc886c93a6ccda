import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { secretsMatch } from '../auth/opaque-token.js';
import { ApiError } from '../errors/api-error.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry; features register their own metrics on it. */
    metrics: Registry;
  }
}

export interface MetricsOptions {
  /** When set, `/metrics` requires `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Label prefix for the service's metric names, e.g. `game`. */
  prefix: string;
}

/**
 * A per-app registry with default process metrics and per-route request count and latency,
 * served at `/metrics` in Prometheus text format.
 */
export const metricsPlugin = fp<MetricsOptions>(
  async (app, options) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: `${options.prefix}_` });
    const labelNames = ['method', 'route', 'status_code'] as const;
    const requests = new Counter({
      name: `${options.prefix}_http_requests_total`,
      help: 'HTTP requests by route and status',
      labelNames,
      registers: [registry],
    });
    const duration = new Histogram({
      name: `${options.prefix}_http_request_duration_seconds`,
      help: 'HTTP request latency by route',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.decorate('metrics', registry);

    app.addHook('onResponse', (request, reply, done) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
      done();
    });

    app.get(
      '/metrics',
      { schema: { tags: ['system'], summary: 'Prometheus metrics', security: options.token ? [{ metricsToken: [] }] : [] } },
      async (request, reply) => {
        if (options.token) {
          const header = request.headers.authorization ?? '';
          const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
          if (!secretsMatch(presented, options.token)) {
            throw new ApiError('unauthorized', 'The metrics endpoint needs Authorization: Bearer <METRICS_TOKEN>.', {
              headers: { 'www-authenticate': 'Bearer' },
            });
          }
        }
        reply.type(registry.contentType);
        return registry.metrics();
      },
    );
  },
  { name: 'server-kit-metrics' },
);
