import { readFileSync } from 'node:fs';
import type { App } from '../http/create-server.js';

/**
 * The served OpenAPI document and the committed copy, both parsed, for a drift assertion.
 * Regenerate the copy with `npm run openapi:write`.
 */
export async function servedAndCommittedOpenApi(app: App, committedFile: URL): Promise<{ served: unknown; committed: unknown }> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  return { served: response.json(), committed: JSON.parse(readFileSync(committedFile, 'utf8')) };
}
