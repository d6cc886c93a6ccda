import { errorResponses, type App } from '@playstack/server-kit';
import { Occurrence } from '../query/query-schemas.js';
import type { ErrorGroups } from './error-groups.js';
import {
  ErrorGroupDetail,
  ErrorGroupListItem,
  ErrorGroupParams,
  ErrorGroupQuery,
  ErrorGroupsQuery,
  ErrorGroupsResponse,
  ErrorGroupStatusResponse,
  ErrorGroupStatusUpdate,
  errorGroupsLimitDefault,
} from './error-schemas.js';

const tags = ['errors'];
const security = [{ session: [] }];
const groupingNote =
  'Error occurrences (status error, with a type, message or stack) are grouped at ingest by fingerprint: service, error type, normalized message and top in-app stack frame (see the read API documentation).';

/** Error groups: the list, one group, and its status (any signed-in user reads; members and admins change status with the CSRF token). */
export async function errorRoutes(app: App): Promise<void> {
  const store = app.telemetry;
  app.addHook('onRequest', app.requireSession);
  // The read routes get their own context for the shared schemas: a context that adds schemas
  // validates bodies with Fastify's default validator (which drops unknown members instead of
  // refusing them), so the POST below stays outside it.
  await app.register(async (reads) => errorReadRoutes(reads, store));

  app.post(
    '/api/v1/errors/:groupId/status',
    {
      schema: {
        tags,
        security,
        summary: 'Resolve, ignore or reopen an error group',
        description:
          'Any signed-in user (member or admin) with the session’s X-CSRF-Token (403 csrf-failed otherwise). A resolved group whose occurrences start after the resolution becomes regressed; an ignored one stays ignored.',
        params: ErrorGroupParams,
        body: ErrorGroupStatusUpdate,
        response: { 200: ErrorGroupStatusResponse, ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => store.setErrorGroupStatus(request.params.groupId, request.body.status, request.signedIn!.user.id, app.clock.now()),
  );
}

async function errorReadRoutes(app: App, store: ErrorGroups): Promise<void> {
  app.addSchema(Occurrence);
  app.addSchema(ErrorGroupListItem);

  app.get(
    '/api/v1/errors',
    {
      schema: {
        tags,
        security,
        summary: 'Error groups seen in the range',
        description: `${groupingNote} Lists the groups with occurrences in the range (default the last 24 hours; counted per hour: an hour counts when any part of it lies in the range), filtered by service, environment and status, sorted by lastSeen (default), firstSeen or count, ${errorGroupsLimitDefault} per page by default with keyset paging (cursor). 400 invalid-cursor for a cursor this service did not hand out for this sort.`,
        querystring: ErrorGroupsQuery,
        response: { 200: ErrorGroupsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.errorGroups(app.clock.now(), request.query),
  );

  app.get(
    '/api/v1/errors/:groupId',
    {
      schema: {
        tags,
        security,
        summary: 'One error group',
        description: 'The group with its trend over the range, environments, most affected tenants, example trace and latest occurrences. 404 error-group-not-found for an unknown id.',
        params: ErrorGroupParams,
        querystring: ErrorGroupQuery,
        response: { 200: ErrorGroupDetail, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => store.errorGroup(app.clock.now(), request.params.groupId, request.query),
  );
}
