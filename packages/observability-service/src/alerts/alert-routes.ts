import { ApiError, errorResponses } from '@playstack/server-kit';
import { minuteMs, minuteOf } from '../time-units.js';
import { apdexThresholdsFrom } from '../service-settings/service-settings.js';
import './alert-error-codes.js';
import { createChannel, deleteChannel, listChannels, newSigningSecret, type ChannelConfig, type ChannelSummary } from './alert-channels.js';
import { gatherEvidence } from './alert-evidence.js';
import { notificationOf } from './alert-notification.js';
import type { DeliveryRecord } from './alert-notifier.js';
import { ruleProblems, withDefaults, type AlertRule, type AlertRuleSpec as Spec } from './alert-rule.js';
import { exportRules } from './alert-rules-file.js';
import {
  AlertEventList,
  AlertRuleList,
  AlertRuleSpec,
  AlertRuleView,
  ChannelCreateBody,
  ChannelList,
  CreatedChannel,
  DeliveriesQuery,
  DeliveryList,
  DeliveryView,
  EventsQuery,
  ExportQuery,
  IdParams,
  RuleSeriesView,
  SeriesQuery,
  SilenceBody,
  SilenceView,
} from './alert-schemas.js';
import { ruleSeries } from './alert-series.js';
import { addSilence, deleteRule, endSilences, findRule, insertRule, listEvents, listRules, newRuleId, ruleStates, silencesAfter, updateRule } from './alert-store.js';
import { readRuleInputs } from './alert-values.js';
import type { ObservabilityApp } from '../database.js';

export interface AlertRoutesOptions {
  apdexThresholdDefaultMs: number;
  /** ALERT_RULES_FILE, when rules are declared in a file. */
  rulesFile: string | undefined;
  publicUrl: string | undefined;
}

const tags = ['alerts'];
const security = [{ session: [] }];
const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

function deliveryView(delivery: DeliveryRecord) {
  return { ...delivery, nextAttemptAt: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null, createdAt: iso(delivery.createdAt), finishedAt: isoOrNull(delivery.finishedAt) };
}

const channelView = (channel: ChannelSummary) => ({ ...channel, createdAt: iso(channel.createdAt) });

/**
 * `/api/v1/alerts`: rules (with their state, silences and a replay of their value), the history
 * of transitions, and notification channels. Any signed-in user reads; changes (and previews,
 * tests) are for admins, with the session's CSRF token.
 */
export async function alertRoutes(app: ObservabilityApp, options: AlertRoutesOptions): Promise<void> {
  const { db } = app.database;
  const apdexThresholds = apdexThresholdsFrom(db, options.apdexThresholdDefaultMs);
  const reads = app.alerts.reads;
  app.addHook('onRequest', async (request, reply) => {
    await (['GET', 'HEAD'].includes(request.method) ? app.requireSession(request, reply) : app.requireAdmin(request, reply));
  });

  const ruleOr404 = async (id: string): Promise<AlertRule> => {
    const rule = await findRule(db, id);
    if (!rule) throw new ApiError('alert-rule-not-found', `No alert rule ${id}.`);
    return rule;
  };
  const editable = async (id: string): Promise<AlertRule> => {
    const rule = await ruleOr404(id);
    if (rule.source === 'file') throw new ApiError('alert-rule-read-only', `${rule.name} is declared in ALERT_RULES_FILE; change it there.`);
    return rule;
  };
  const checked = async (spec: Spec): Promise<Spec> => {
    const problems = ruleProblems(spec).map((problem) => `${problem.path.slice(1)}: ${problem.message}`);
    const channels = await listChannels(db);
    for (const channel of spec.channels ?? []) {
      if (!channels.some((known) => known.id === channel || known.name === channel)) problems.push(`channels: no channel ${channel}`);
    }
    if (problems.length > 0) throw new ApiError('invalid-request', `The rule is not valid: ${problems.join('; ')}.`);
    return spec;
  };
  const views = async (rules: readonly AlertRule[]) => {
    const now = app.clock.now();
    const states = await ruleStates(db as never);
    const silences = await silencesAfter(db as never, now);
    return rules.map((rule) => {
      const { id, source, ...spec } = rule;
      const state = states.get(id);
      const silence = silences.get(id)?.[0];
      return {
        id,
        source,
        rule: spec,
        state: state
          ? { state: state.state, since: iso(state.sinceMinute), value: state.value, evaluatedAt: iso(state.evaluatedMinute) }
          : { state: 'ok' as const, since: null, value: null, evaluatedAt: null },
        silence: silence ? { until: iso(silence.until), reason: silence.reason } : null,
      };
    });
  };
  const seriesView = async (rule: AlertRule, hours: number) => {
    const last = minuteOf(app.clock.now()) - minuteMs;
    const first = last - (hours * 60 - 1) * minuteMs;
    const series = await ruleSeries(reads, rule, first, last, apdexThresholds);
    return {
      from: iso(first),
      to: iso(last + minuteMs),
      threshold: rule.threshold,
      points: series.points.map((point) => ({ minute: iso(point.minute), value: point.value })),
      firing: series.firing.map((stretch) => ({ from: iso(stretch.from), to: isoOrNull(stretch.to) })),
    };
  };

  app.get(
    '/api/v1/alerts/rules',
    { schema: { tags, security, summary: 'Alert rules with their state and silence', response: { 200: AlertRuleList, ...errorResponses(401) } } },
    async () => ({ items: await views(await listRules(db)), rulesFile: options.rulesFile ?? null }),
  );

  app.post(
    '/api/v1/alerts/rules',
    {
      schema: { tags, security, summary: 'Create an alert rule', body: AlertRuleSpec, response: { 201: AlertRuleView, ...errorResponses(400, 401, 403, 415) } },
    },
    async (request, reply) => {
      const spec = await checked(request.body);
      const id = newRuleId();
      await insertRule(db, { id, source: 'api', spec }, app.clock.now(), request.signedIn!.user.id);
      return reply.code(201).send((await views([withDefaults(spec, id, 'api')]))[0]!);
    },
  );

  app.get(
    '/api/v1/alerts/rules/:id',
    { schema: { tags, security, summary: 'One alert rule', params: IdParams, response: { 200: AlertRuleView, ...errorResponses(401, 404) } } },
    async (request) => (await views([await ruleOr404(request.params.id)]))[0],
  );

  app.put(
    '/api/v1/alerts/rules/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Change an alert rule (not one from ALERT_RULES_FILE: 409)',
        params: IdParams,
        body: AlertRuleSpec,
        response: { 200: AlertRuleView, ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => {
      await editable(request.params.id);
      const spec = await checked(request.body);
      await updateRule(db, request.params.id, spec, app.clock.now(), request.signedIn!.user.id);
      return (await views([withDefaults(spec, request.params.id, 'api')]))[0];
    },
  );

  app.delete(
    '/api/v1/alerts/rules/:id',
    { schema: { tags, security, summary: 'Delete an alert rule (its history stays)', params: IdParams, response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 409) } } },
    async (request, reply) => {
      await editable(request.params.id);
      await deleteRule(db, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/v1/alerts/rules/:id/silence',
    {
      schema: {
        tags,
        security,
        summary: 'Silence a rule until a time, with a reason',
        description: 'Transitions are still evaluated and stored (marked silenced); no notification is sent for them. File rules can be silenced too.',
        params: IdParams,
        body: SilenceBody,
        response: { 201: SilenceView, ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      await ruleOr404(request.params.id);
      const until = Date.parse(request.body.until);
      const now = app.clock.now();
      if (until <= now) throw new ApiError('invalid-request', 'until must lie in the future.');
      const silence = await addSilence(db, { ruleId: request.params.id, until, reason: request.body.reason, createdBy: request.signedIn!.user.id, createdAt: now });
      return reply.code(201).send({ id: silence.id, ruleId: silence.ruleId, until: iso(silence.until), reason: silence.reason, createdAt: iso(silence.createdAt) });
    },
  );

  app.delete(
    '/api/v1/alerts/rules/:id/silence',
    { schema: { tags, security, summary: 'End a rule\u2019s silences now', params: IdParams, response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404) } } },
    async (request, reply) => {
      await ruleOr404(request.params.id);
      await endSilences(db, request.params.id, app.clock.now());
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/alerts/rules/:id/series',
    {
      schema: {
        tags,
        security,
        summary: 'A rule\u2019s value each minute over the last hours, and when it fired',
        params: IdParams,
        querystring: SeriesQuery,
        response: { 200: RuleSeriesView, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => seriesView(await ruleOr404(request.params.id), request.query.hours),
  );

  app.post(
    '/api/v1/alerts/preview',
    {
      schema: {
        tags,
        security,
        summary: 'How a draft rule would have fired over the last 24 hours',
        body: AlertRuleSpec,
        response: { 200: RuleSeriesView, ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request) => seriesView(withDefaults(await checked(request.body), 'preview', 'api'), 24),
  );

  app.get(
    '/api/v1/alerts/export',
    {
      schema: {
        tags,
        security,
        summary: 'The rules made in the dashboard, in the ALERT_RULES_FILE format',
        querystring: ExportQuery,
        response: { 200: { type: 'string', description: 'YAML (application/yaml) or JSON.' }, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const rules = (await listRules(db)).filter((rule) => rule.source === 'api');
      const format = request.query.format;
      return reply
        .header('content-type', format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8')
        .header('content-disposition', `attachment; filename="alert-rules.${format}"`)
        .send(exportRules(rules, format));
    },
  );

  app.get(
    '/api/v1/alerts/events',
    {
      schema: {
        tags,
        security,
        summary: 'Alert history: every transition, newest first, with its evidence and deliveries; filtered by rule, state and time range',
        querystring: EventsQuery,
        response: { 200: AlertEventList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { ruleId, state, from, to, before, limit } = request.query;
      const fromMinute = from === undefined ? undefined : Date.parse(from);
      const toMinute = to === undefined ? undefined : Date.parse(to);
      if (fromMinute !== undefined && toMinute !== undefined && fromMinute >= toMinute) throw new ApiError('invalid-request', '`from` must lie before `to`.');
      const events = await listEvents(db, { ruleId, state, fromMinute, toMinute, beforeId: before, limit });
      const items = [];
      for (const event of events) {
        const deliveries = await app.alerts.notifier.eventDeliveries(event.id);
        items.push({ ...event, minute: iso(event.minute), evidence: event.evidence as never, deliveries: deliveries.map(deliveryView) });
      }
      return { items, nextBefore: events.length === request.query.limit ? events.at(-1)!.id : null };
    },
  );

  app.get(
    '/api/v1/alerts/channels',
    { schema: { tags, security, summary: 'Notification channels (never their URLs\u2019 paths or secrets)', response: { 200: ChannelList, ...errorResponses(401) } } },
    async () => ({ items: (await listChannels(db)).map(channelView) }),
  );

  app.post(
    '/api/v1/alerts/channels',
    {
      schema: {
        tags,
        security,
        summary: 'Add a notification channel: a webhook (its signing secret is shown once), a Slack incoming webhook, or email',
        body: ChannelCreateBody,
        response: { 201: CreatedChannel, ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request, reply) => {
      const { name, kind, url, to } = request.body;
      let config: ChannelConfig;
      if (kind === 'email') {
        if (!to || url !== undefined) throw new ApiError('invalid-request', 'An email channel takes `to` (and no `url`).');
        config = { kind, to };
      } else {
        if (!url || to !== undefined) throw new ApiError('invalid-request', `A ${kind} channel takes \`url\` (and no \`to\`).`);
        if (!URL.canParse(url)) throw new ApiError('invalid-request', 'url is not a URL.');
        config = kind === 'webhook' ? { kind, url, secret: newSigningSecret() } : { kind, url };
      }
      const channel = await createChannel(db, app.alerts.sealer, { name, config }, app.clock.now(), request.signedIn!.user.id);
      return reply.code(201).send({ channel: channelView(channel), signingSecret: config.kind === 'webhook' ? config.secret : null });
    },
  );

  app.delete(
    '/api/v1/alerts/channels/:id',
    { schema: { tags, security, summary: 'Remove a notification channel', params: IdParams, response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404) } } },
    async (request, reply) => {
      if (!(await deleteChannel(db, request.params.id))) throw new ApiError('alert-channel-not-found', `No channel ${request.params.id}.`);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/v1/alerts/channels/:id/test',
    {
      schema: {
        tags,
        security,
        summary: 'Send a test notification now (retried like any other if it fails)',
        params: IdParams,
        response: { 200: DeliveryView, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await listChannels(db)).some((channel) => channel.id === request.params.id)) throw new ApiError('alert-channel-not-found', `No channel ${request.params.id}.`);
      const last = minuteOf(app.clock.now()) - minuteMs;
      const rule = withDefaults({ name: 'Test notification', metric: 'error-rate', service: 'example-service', comparison: '>', threshold: 5, windowMinutes: 5, forMinutes: 0, channels: [] }, 'test', 'api');
      const evidence = await gatherEvidence(reads, rule, last, 12.5, await readRuleInputs(reads, [], last, last, apdexThresholds), options.publicUrl);
      return deliveryView(await app.alerts.notifier.sendTest(request.params.id, notificationOf(rule, 'firing', null, last, evidence)));
    },
  );

  app.get(
    '/api/v1/alerts/channels/:id/deliveries',
    {
      schema: { tags, security, summary: 'A channel\u2019s delivery log, newest first', params: IdParams, querystring: DeliveriesQuery, response: { 200: DeliveryList, ...errorResponses(400, 401) } },
    },
    async (request) => ({ items: (await app.alerts.notifier.channelDeliveries(request.params.id, request.query.limit)).map(deliveryView) }),
  );
}
