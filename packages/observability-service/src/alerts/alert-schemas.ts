import { Type, type Static } from '@sinclair/typebox';
import { AlertRuleSpec } from './alert-rule.js';
import { alertStates } from './alert-state.js';
import { channelKinds } from './alert-channels.js';

const Iso = Type.String({ format: 'date-time' });
const IsoOrNull = Type.Union([Iso, Type.Null()]);
const ValueOrNull = Type.Union([Type.Number(), Type.Null()]);
const State = Type.Union(alertStates.map((state) => Type.Literal(state)));

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type IdParams = Static<typeof IdParams>;

export { AlertRuleSpec };

export const AlertRuleView = Type.Object({
  id: Type.String(),
  source: Type.Union([Type.Literal('api'), Type.Literal('file')], { description: 'file: declared in ALERT_RULES_FILE, read-only here.' }),
  rule: Type.Object({ ...AlertRuleSpec.properties, windowMinutes: Type.Integer(), forMinutes: Type.Integer(), channels: Type.Array(Type.String()) }),
  state: Type.Object({
    state: State,
    since: IsoOrNull,
    value: ValueOrNull,
    evaluatedAt: IsoOrNull,
  }),
  silence: Type.Union([Type.Object({ until: Iso, reason: Type.String() }), Type.Null()], { description: 'The silence in force now, if any.' }),
});
export type AlertRuleView = Static<typeof AlertRuleView>;

export const AlertRuleList = Type.Object({
  items: Type.Array(AlertRuleView),
  rulesFile: Type.Union([Type.String(), Type.Null()], { description: 'ALERT_RULES_FILE, when rules are declared in a file.' }),
});

export const SilenceBody = Type.Object(
  {
    until: Type.String({ format: 'date-time', description: 'The silence ends then (notifications resume; transitions are stored meanwhile).' }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);
export type SilenceBody = Static<typeof SilenceBody>;

export const SilenceView = Type.Object({ id: Type.String(), ruleId: Type.String(), until: Iso, reason: Type.String(), createdAt: Iso });

export const SeriesQuery = Type.Object({ hours: Type.Integer({ minimum: 1, maximum: 168, default: 24 }) });
export type SeriesQuery = Static<typeof SeriesQuery>;

export const RuleSeriesView = Type.Object({
  from: Iso,
  to: Iso,
  threshold: Type.Number(),
  points: Type.Array(Type.Object({ minute: Iso, value: ValueOrNull })),
  firing: Type.Array(Type.Object({ from: Iso, to: IsoOrNull }), { description: 'When the rule fired (or would have) and resolved, replayed from ok at `from`.' }),
});

export const EventsQuery = Type.Object({
  ruleId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  state: Type.Optional(Type.Union(alertStates.map((state) => Type.Literal(state)), { description: 'Only transitions into this state.' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only transitions of minutes at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only transitions of minutes before this time (after `from`).' })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'Events with a smaller id (the `nextBefore` of the previous page).' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});
export type EventsQuery = Static<typeof EventsQuery>;

const Delivery = Type.Object({
  id: Type.Integer(),
  eventId: Type.Union([Type.Integer(), Type.Null()]),
  channelId: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  nextAttemptAt: IsoOrNull,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Iso,
  finishedAt: IsoOrNull,
});

const EvidenceTrace = Type.Object({ traceId: Type.String(), spanId: Type.String(), durationMs: Type.Number(), status: Type.String(), url: Type.String() });
const EvidenceGroup = Type.Object({ groupId: Type.String(), type: Type.String(), message: Type.String(), topFrames: Type.Array(Type.String()), url: Type.String() });
export const Evidence = Type.Object({
  metric: Type.String(),
  value: ValueOrNull,
  comparison: Type.String(),
  threshold: Type.Number(),
  window: Type.Object({ from: Iso, to: Iso }),
  dashboardUrl: Type.String(),
  traces: Type.Array(EvidenceTrace),
  errorGroups: Type.Array(EvidenceGroup),
});

export const AlertEventView = Type.Object({
  id: Type.Integer(),
  ruleId: Type.String(),
  ruleName: Type.String(),
  from: State,
  to: State,
  minute: Iso,
  value: ValueOrNull,
  threshold: Type.Number(),
  silenced: Type.Boolean(),
  evidence: Evidence,
  deliveries: Type.Array(Delivery),
});
export const AlertEventList = Type.Object({ items: Type.Array(AlertEventView), nextBefore: Type.Union([Type.Integer(), Type.Null()]) });

export const ChannelCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    kind: Type.Union(channelKinds.map((kind) => Type.Literal(kind))),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://', description: 'webhook and slack: where to POST.' })),
    to: Type.Optional(Type.Array(Type.String({ format: 'email', maxLength: 320 }), { minItems: 1, maxItems: 20, description: 'email: the addresses.' })),
  },
  { additionalProperties: false },
);
export type ChannelCreateBody = Static<typeof ChannelCreateBody>;

export const ChannelView = Type.Object({ id: Type.String(), name: Type.String(), kind: Type.Union(channelKinds.map((kind) => Type.Literal(kind))), target: Type.String(), createdAt: Iso });
export const ChannelList = Type.Object({ items: Type.Array(ChannelView) });
export const CreatedChannel = Type.Object({
  channel: ChannelView,
  signingSecret: Type.Union([Type.String(), Type.Null()], { description: 'webhook: the HMAC key of X-Alert-Signature, shown this once (stored sealed).' }),
});
export const DeliveryView = Delivery;
export const DeliveryList = Type.Object({ items: Type.Array(Delivery) });
export const DeliveriesQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) });
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const ExportQuery = Type.Object({ format: Type.Union([Type.Literal('yaml'), Type.Literal('json')], { default: 'yaml' }) });
export type ExportQuery = Static<typeof ExportQuery>;
