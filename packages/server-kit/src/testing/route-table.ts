import type { App } from '../http/create-server.js';

const treeLine = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/;

/**
 * Every route `app` answers, as `METHOD /path` with OpenAPI-style `{param}`s (HEAD left out),
 * read from Fastify's own route tree: routes hidden from the OpenAPI document included, so a test
 * can check that the document leaves none out.
 */
export function routeTable(app: App): string[] {
  const routes: string[] = [];
  const pathAtDepth: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = treeLine.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (depth === 0 ? '' : pathAtDepth[depth - 1]!) + match[2]!;
    pathAtDepth[depth] = path;
    const openApiPath = path.replace(/:(\w+)/g, '{$1}');
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) routes.push(`${method} ${openApiPath}`);
  }
  return routes;
}
