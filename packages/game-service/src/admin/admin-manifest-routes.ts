import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, findOddValue } from '@playstack/server-kit';
import type { StoreManifestResult } from '../manifest/game-catalog.js';
import type { ManifestProblem } from '../manifest/manifest-check.js';
import { describeOrphan } from '../manifest/manifest-changes.js';
import type { Notice } from './admin-layout.js';
import { manifestBody, manifestVersionBody, type ManifestSubmission } from './admin-manifest-views.js';
import { FormBody, type AdminPageContext } from './admin-page-context.js';
import { wantsJson } from './admin-session.js';
import '../manifest/manifest-error-codes.js';

/**
 * A manifest submitted as JSON (`{"manifest": {...}, "confirm"?: true, "preview"?: true}`); forms
 * send text, `confirm=yes`, and `preview=yes` from the preview button.
 */
const ManifestJsonBody = Type.Object(
  { manifest: Type.Object({}, { additionalProperties: true }), confirm: Type.Optional(Type.Boolean()), preview: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
/** A rollback: a form (`confirm=yes`) or JSON (`{"confirm"?: true}`). */
const RollbackJsonBody = Type.Object({ confirm: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const VersionParams = Type.Object({ version: Type.Integer({ minimum: 1 }) });

/** What a form's checkbox or button (or a JSON `true`) says. */
function isYes(value: unknown): boolean {
  return value === true || (typeof value === 'string' && ['yes', 'on', 'true', '1'].includes(value.toLowerCase()));
}

/** A manifest posted as JSON text (a form) or as a JSON object; text that is not JSON is an invalid manifest. */
function submittedDocument(manifest: unknown): { document: unknown } | { problems: ManifestProblem[] } {
  if (typeof manifest !== 'string') return { document: manifest ?? null };
  let document: unknown;
  try {
    document = JSON.parse(manifest);
  } catch (error) {
    return { problems: [{ path: '', reason: `not valid JSON: ${(error as Error).message}` }] };
  }
  // Parsed here, so not seen by the check every request body gets.
  const odd = findOddValue(document);
  return odd ? { problems: [{ path: odd.path.slice(1).replaceAll('/', '.'), reason: odd.message }] } : { document };
}

function refusal(problems: readonly ManifestProblem[]): ApiError {
  return new ApiError('invalid-manifest', `The manifest was refused: ${problems.map((p) => `${p.path || '/'}: ${p.reason}`).join('; ')}`);
}

/** How a store that stored nothing is shown again as a page (the JSON answers are the same everywhere). */
type ShowAgain = (status: number, notice: Notice | undefined, details: { orphans?: string[]; problems?: readonly ManifestProblem[] }) => Promise<FastifyReply>;

/** Answers what storing a manifest (or rolling back) did: JSON for clients, the page again for forms. */
async function answerStore(request: FastifyRequest, reply: FastifyReply, outcome: StoreManifestResult, showAgain: ShowAgain): Promise<FastifyReply> {
  switch (outcome.outcome) {
    case 'stored':
      if (wantsJson(request)) return reply.code(201).send({ version: outcome.version });
      return showAgain(201, { kind: 'success', text: `Saved as version ${outcome.version.version}; it is served now.` }, {});
    case 'unchanged':
      if (wantsJson(request)) return reply.send({ version: outcome.version, unchanged: true });
      return showAgain(200, { kind: 'success', text: `Nothing to save: version ${outcome.version.version} is this same manifest, and it is served.` }, {});
    case 'needs-confirmation': {
      const orphans = outcome.orphans.map(describeOrphan);
      if (wantsJson(request)) {
        throw new ApiError('conflict', `Storing this manifest would orphan data of ${orphans.join('; ')}. Send it again with "confirm": true to store it anyway.`);
      }
      return showAgain(409, undefined, { orphans });
    }
    case 'invalid':
      if (wantsJson(request)) throw refusal(outcome.problems);
      return showAgain(400, undefined, { problems: outcome.problems });
  }
}

/** The manifest page: the served manifest, its editor with a preview of the changes, its versions and their rollback. */
export function adminManifestRoutes(context: AdminPageContext): void {
  const { app, data, respond } = context;
  const showManifest = async (request: FastifyRequest, reply: FastifyReply, status: number, notice: Notice | undefined, submitted: ManifestSubmission | undefined) => {
    const view = await data.manifest();
    return respond(request, reply, { title: 'Manifest', status, notice, json: view, body: () => manifestBody(view, request.adminSession!.csrfToken, submitted, app.clock.now()) });
  };
  const requireVersion = async (version: number) => {
    const view = await app.games.versionView(version);
    if (!view) throw new ApiError('manifest-version-not-found', `No stored manifest version ${version}.`);
    return view;
  };

  app.get('/manifest', { schema: { hide: true } }, async (request, reply) => showManifest(request, reply, 200, undefined, undefined));

  app.post('/manifest', { schema: { hide: true, body: Type.Union([FormBody, ManifestJsonBody]) } }, async (request, reply) => {
    const body = request.body as { manifest?: unknown; confirm?: unknown; preview?: unknown };
    const text = typeof body.manifest === 'string' ? body.manifest : JSON.stringify(body.manifest ?? null, null, 2);
    const submitted = submittedDocument(body.manifest);
    const changesOf = async (document: unknown) => {
      const preview = await app.games.previewManifest(document);
      return preview.outcome === 'preview' ? preview : undefined;
    };
    if (isYes(body.preview)) {
      const preview = 'problems' in submitted ? ({ outcome: 'invalid', problems: submitted.problems } as const) : await app.games.previewManifest(submitted.document);
      if (preview.outcome === 'invalid') {
        if (wantsJson(request)) throw refusal(preview.problems);
        return showManifest(request, reply, 400, undefined, { text, problems: preview.problems });
      }
      const orphans = preview.orphans.map(describeOrphan);
      if (wantsJson(request)) return reply.send({ against: preview.against, diff: preview.diff, orphans });
      const notice: Notice = { kind: 'success', text: 'Not saved yet: check the changes below, then save.' };
      return showManifest(request, reply, 200, notice, { text, orphans, changes: preview, previewed: true });
    }
    const outcome: StoreManifestResult = 'problems' in submitted
      ? { outcome: 'invalid', problems: submitted.problems }
      : await app.games.storeManifest(submitted.document, { author: request.adminSession!.user.email, confirm: isYes(body.confirm) });
    return answerStore(request, reply, outcome, async (status, notice, details) =>
      showManifest(request, reply, status, notice, status >= 400 || details.orphans
        ? { text, ...details, changes: details.orphans && 'document' in submitted ? await changesOf(submitted.document) : undefined }
        : undefined),
    );
  });

  app.get('/manifest/versions/:version', { schema: { hide: true, params: VersionParams } }, async (request, reply) => {
    const view = await requireVersion(request.params.version);
    const csrf = request.adminSession!.csrfToken;
    return respond(request, reply, { title: `Manifest version ${view.version.version}`, json: view, body: () => manifestVersionBody(view, csrf, [], app.clock.now()) });
  });

  app.post('/manifest/versions/:version/rollback', { schema: { hide: true, params: VersionParams, body: Type.Optional(Type.Union([FormBody, RollbackJsonBody])) } }, async (request, reply) => {
    const { version } = request.params;
    const body = (request.body ?? {}) as { confirm?: unknown };
    const outcome = await app.games.rollBack(version, { author: request.adminSession!.user.email, confirm: isYes(body.confirm) });
    if (!outcome) throw new ApiError('manifest-version-not-found', `No stored manifest version ${version}.`);
    return answerStore(request, reply, outcome, async (status, notice, details) => {
      if (status < 400) return showManifest(request, reply, status, notice, undefined);
      const view = await requireVersion(version);
      const refused: Notice | undefined = details.problems
        ? { kind: 'error', text: `Version ${version} no longer passes the check: ${details.problems.map((p) => `${p.path || '/'}: ${p.reason}`).join('; ')}` }
        : undefined;
      return respond(request, reply, { title: `Manifest version ${version}`, status, notice: refused, json: null, body: () => manifestVersionBody(view, request.adminSession!.csrfToken, details.orphans ?? [], app.clock.now()) });
    });
  });
}
