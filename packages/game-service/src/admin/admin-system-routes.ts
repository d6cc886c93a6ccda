import type { AdminPageContext } from './admin-page-context.js';
import { adminStylesheet } from './admin-styles.js';
import { adaptersBody, healthBody } from './admin-views.js';

/** The adapters and health pages, and the pages' stylesheet. */
export function adminSystemRoutes(context: AdminPageContext): void {
  const { app, data, respond } = context;

  app.get('/assets/admin.css', { config: { adminPublic: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(adminStylesheet),
  );

  app.get('/adapters', { schema: { hide: true } }, async (request, reply) => {
    const adapters = data.adapters();
    const json = {
      adapters: adapters.map(({ type, usedBy }) => ({ id: type.id, version: type.version, description: type.description, outputs: type.outputs, payloadSchema: type.payloadSchema, usedBy })),
    };
    return respond(request, reply, { title: 'Adapters', json, body: () => adaptersBody(adapters) });
  });

  app.get('/health', { schema: { hide: true } }, async (request, reply) => {
    const health = await data.health();
    return respond(request, reply, { title: 'Health', json: health, body: () => healthBody(health) });
  });
}
