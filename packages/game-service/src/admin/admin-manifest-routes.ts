import { Type } from '@sinclair/typebox';
import { ApiError, findOddValue, type App } from '@playstack/server-kit';
import type { StoreManifestResult } from '../manifest/game-catalog.js';
import { describeOrphan } from '../manifest/manifest-changes.js';
import type { Notice } from './admin-layout.js';
import { FormBody, type AdminPageContext } from './admin-page-context.js';
import { wantsJson } from './admin-session.js';
import { manifestBody, type ManifestSubmission } from './admin-views.js';
import '../manifest/manifest-error-codes.js';

/** A manifest submitted as JSON (`{"manifest": {...}, "confirm"?: true}`); forms send text and `confirm=yes`. */
const ManifestJsonBody = Type.Object({ manifest: Type.Object({}, { additionalProperties: true }), confirm: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** What a form's confirmation checkbox (or a JSON `true`) says. */
function confirmed(value: unknown): boolean {
  return value === true || (typeof value === 'string' && ['yes', 'on', 'true', '1'].includes(value.toLowerCase()));
}

/** Stores a manifest posted as JSON text (a form) or as a JSON object; text that is not JSON is an invalid manifest. */
async function storeSubmittedManifest(app: App, body: { manifest?: unknown; confirm?: unknown }, author: string): Promise<StoreManifestResult> {
  let document: unknown = body.manifest;
  if (typeof document === 'string') {
    try {
      document = JSON.parse(document);
    } catch (error) {
      return { outcome: 'invalid', problems: [{ path: '', reason: `not valid JSON: ${(error as Error).message}` }] };
    }
    // Parsed here, so not seen by the check every request body gets.
    const odd = findOddValue(document);
    if (odd) return { outcome: 'invalid', problems: [{ path: odd.path.slice(1).replaceAll('/', '.'), reason: odd.message }] };
  }
  return app.games.storeManifest(document ?? null, { author, confirm: confirmed(body.confirm) });
}

/** The manifest page: the served manifest, its versions, and the editor that stores a new one. */
export function adminManifestRoutes(context: AdminPageContext): void {
  const { app, data, respond } = context;

  app.get('/manifest', { schema: { hide: true } }, async (request, reply) => {
    const view = await data.manifest();
    const csrf = request.adminSession!.csrfToken;
    return respond(request, reply, { title: 'Manifest', json: view, body: () => manifestBody(view, csrf, undefined) });
  });

  app.post('/manifest', { schema: { hide: true, body: Type.Union([FormBody, ManifestJsonBody]) } }, async (request, reply) => {
    const body = request.body as { manifest?: unknown; confirm?: unknown };
    const text = typeof body.manifest === 'string' ? body.manifest : JSON.stringify(body.manifest ?? null, null, 2);
    const outcome = await storeSubmittedManifest(app, body, request.adminSession!.user.email);
    const showForm = async (status: number, notice: Notice | undefined, submitted: ManifestSubmission | undefined) => {
      const view = await data.manifest();
      return respond(request, reply, { title: 'Manifest', status, notice, json: null, body: () => manifestBody(view, request.adminSession!.csrfToken, submitted) });
    };
    switch (outcome.outcome) {
      case 'stored':
        if (wantsJson(request)) return reply.code(201).send({ version: outcome.version });
        return showForm(201, { kind: 'success', text: `Saved as version ${outcome.version.version}; it is served now.` }, undefined);
      case 'unchanged':
        if (wantsJson(request)) return reply.send({ version: outcome.version, unchanged: true });
        return showForm(200, { kind: 'success', text: `Nothing to save: version ${outcome.version.version} is this same manifest, and it is served.` }, undefined);
      case 'needs-confirmation': {
        const orphans = outcome.orphans.map(describeOrphan);
        if (wantsJson(request)) {
          throw new ApiError('conflict', `Storing this manifest would orphan data of ${orphans.join('; ')}. Send it again with "confirm": true to store it anyway.`);
        }
        return showForm(409, undefined, { text, orphans });
      }
      case 'invalid':
        if (wantsJson(request)) {
          throw new ApiError('invalid-manifest', `The manifest was refused: ${outcome.problems.map((p) => `${p.path || '/'}: ${p.reason}`).join('; ')}`);
        }
        return showForm(400, undefined, { text, problems: outcome.problems });
    }
  });
}
