import { Type, type Static } from '@sinclair/typebox';
import { Occurrence, filterParameters, rangeParameters } from '../query/query-schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);

export const errorGroupsLimitMax = 100;
export const errorGroupsLimitDefault = 25;
/** Tenants and recent occurrences a group page shows. */
export const groupTenantsShown = 20;
export const groupRecentOccurrencesShown = 20;

export const ErrorGroupStatusSchema = Type.Union([Type.Literal('open'), Type.Literal('regressed'), Type.Literal('resolved'), Type.Literal('ignored')], {
  description: 'open; resolved (by a user); ignored (by a user: stays ignored when it recurs); regressed (resolved, then an occurrence started after the resolution).',
});

export const ErrorGroupsQuery = Type.Object(
  {
    ...rangeParameters,
    ...filterParameters,
    status: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('regressed'), Type.Literal('resolved'), Type.Literal('ignored'), Type.Literal('unresolved')], {
        description: 'Only groups with this status; `unresolved` is open or regressed. Default: all.',
      }),
    ),
    sort: Type.Optional(
      Type.Union([Type.Literal('lastSeen'), Type.Literal('firstSeen'), Type.Literal('count')], {
        default: 'lastSeen',
        description: 'Newest last occurrence first (default), newest group first, or most occurrences in the range first.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: errorGroupsLimitMax, default: errorGroupsLimitDefault, description: `Groups per page (1-${errorGroupsLimitMax}).` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The `nextCursor` of the previous page, with the same sort.' })),
  },
  { additionalProperties: false },
);
export type ErrorGroupsQuery = Static<typeof ErrorGroupsQuery>;

const groupFields = {
  groupId: Type.String({ description: 'The fingerprint: 16 hexadecimal characters.' }),
  service: Type.String(),
  type: Type.String({ description: 'The error type; empty when the error named none.' }),
  message: Type.String({ description: 'The normalized message: quoted values, ids and numbers as `?`.' }),
  topFrame: Type.String({ description: 'The top in-app stack frame, `function (dir/file)`; empty without a stack.' }),
  exampleMessage: Nullable(Type.String({ description: 'The latest occurrence’s message as sent.' })),
  status: ErrorGroupStatusSchema,
  statusChangedAt: Nullable(Timestamp, { description: 'When a user last changed the status.' }),
  firstSeen: Timestamp,
  lastSeen: Timestamp,
  count: Type.Integer({ description: 'Occurrences since the group was first seen (within retention).' }),
  countInRange: Type.Integer({ description: 'Occurrences in the range (and environment), counted per hour: an hour counts when any part of it lies in the range.' }),
  tenantsAffected: Type.Integer({ description: 'Tenants with at least one occurrence (within retention).' }),
  exampleTrace: Type.Object({ traceId: Type.String(), spanId: Type.String() }, { description: 'The latest occurrence’s trace and span.' }),
};

export const ErrorGroupListItem = Type.Object(
  { ...groupFields, trend: Type.Array(Type.Integer(), { description: 'Occurrences per bucket of the response’s trend layout, oldest first.' }) },
  { $id: 'ErrorGroupListItem' },
);
export type ErrorGroupListItem = Static<typeof ErrorGroupListItem>;

const TrendLayout = Type.Object({ start: Timestamp, intervalMs: Type.Integer({ description: 'Bucket size in ms.' }), buckets: Type.Integer() });

export const ErrorGroupsResponse = Type.Object(
  {
    range: Type.Object({ from: Timestamp, to: Timestamp }),
    trend: TrendLayout,
    items: Type.Array(Type.Ref('ErrorGroupListItem')),
    limit: Type.Integer(),
    nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' })),
  },
  { $id: 'ErrorGroupsResponse' },
);
export type ErrorGroupsResponse = { range: { from: string; to: string }; trend: Static<typeof TrendLayout>; items: ErrorGroupListItem[]; limit: number; nextCursor: string | null };

export const ErrorGroupParams = Type.Object({ groupId: Type.String({ pattern: '^[0-9a-f]{16}$', description: 'The group id (16 hexadecimal characters).' }) });
export type ErrorGroupParams = Static<typeof ErrorGroupParams>;

export const ErrorGroupQuery = Type.Object({ ...rangeParameters, environment: filterParameters.environment }, { additionalProperties: false });
export type ErrorGroupQuery = Static<typeof ErrorGroupQuery>;

export const ErrorGroupDetail = Type.Object(
  {
    ...groupFields,
    range: Type.Object({ from: Timestamp, to: Timestamp }),
    trend: Type.Array(Type.Object({ start: Timestamp, count: Type.Integer() }), { description: 'Occurrences per bucket over the range, oldest first; empty buckets as zeros.' }),
    trendIntervalMs: Type.Integer(),
    environments: Type.Array(Type.Object({ environment: Type.String(), count: Type.Integer() }), { description: 'Occurrences in the range per environment, most first.' }),
    tenants: Type.Array(Type.Object({ tenantId: Type.String(), count: Type.Integer(), lastSeen: Timestamp }), {
      description: `The most affected tenants (at most ${groupTenantsShown}), most occurrences first.`,
    }),
    recentOccurrences: Type.Array(Type.Ref('Occurrence'), { description: `The latest occurrences in the range (at most ${groupRecentOccurrencesShown}), newest first.` }),
  },
  { $id: 'ErrorGroupDetail' },
);
export type ErrorGroupDetail = Omit<Static<typeof ErrorGroupDetail>, 'recentOccurrences'> & { recentOccurrences: Occurrence[] };

export const ErrorGroupStatusUpdate = Type.Object(
  {
    status: Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('ignored')], {
      description: 'resolved: a later occurrence marks it regressed; ignored: kept out of the unresolved list even when it recurs; open: reopened.',
    }),
  },
  { additionalProperties: false },
);
export type ErrorGroupStatusUpdate = Static<typeof ErrorGroupStatusUpdate>;

export const ErrorGroupStatusResponse = Type.Object(
  { groupId: Type.String(), status: ErrorGroupStatusSchema, statusChangedAt: Timestamp },
  { $id: 'ErrorGroupStatusResponse' },
);
export type ErrorGroupStatusResponse = Static<typeof ErrorGroupStatusResponse>;
