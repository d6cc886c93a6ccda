import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { AlertRulesFileError, parseRulesFile } from '../src/alerts/alert-rules-file.js';
import { alertTestEnv, ingestMinute } from './support/alert-data.js';
import { asBrowser, invitedUser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { HttpReceiver } from './support/http-receiver.js';
import { buildTestApp } from './support/test-app.js';

const minute = 60_000;
const start = Date.parse('2026-11-10T12:00:00.000Z');
const at = (n: number) => start + n * minute;
const iso = (ms: number) => new Date(ms).toISOString();

describeEachDatabase('alerts API', (database) => {
  const clock = new ManualClock(at(0));
  const receiver = new HttpReceiver();
  let app: App;
  let admin: BrowserSession;
  let member: BrowserSession;
  const sent: Record<number, Array<{ traceId: string; durationMs: number; status: string }>> = {};
  const call = async (session: BrowserSession, method: string, url: string, payload?: unknown, expected = 200) => {
    const response = await asBrowser(app, session, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) });
    expect(response.statusCode, response.body).toBe(expected);
    return response.statusCode === 204 ? undefined : response.json();
  };

  beforeAll(async () => {
    const base = await receiver.listen();
    app = await buildTestApp(database(), alertTestEnv, { clock });
    admin = await setUpFirstAdmin(app);
    member = await invitedUser(app, admin, 'member@example.com', 'member');
    // Minutes 0-29: 20 requests a minute (a tenant's half of them at minutes 10-19); minutes 20-24 half fail.
    for (let n = 0; n < 30; n += 1) {
      sent[n] = await ingestMinute(app, at(n), { requests: 20, errorShare: n >= 20 && n < 25 ? 0.5 : 0 });
      if (n >= 10 && n < 20) sent[n] = [...sent[n]!, ...(await ingestMinute(app, at(n) + 1000, { requests: 10, errorShare: 0.3, tenantId: 'acme' }))];
    }
    clock.set(at(30));
    (globalThis as { receiverBase?: string }).receiverBase = base;
  });
  afterAll(async () => {
    await app?.close();
    await receiver.close();
  });

  it('adds a webhook channel whose signing secret is shown once, then lists it without URL path or secret', async () => {
    const base = (globalThis as { receiverBase?: string }).receiverBase!;
    const created = await call(admin, 'POST', '/api/v1/alerts/channels', { name: 'ops hook', kind: 'webhook', url: `${base}/hook/secret-path` }, 201);
    expect(created.signingSecret).toMatch(/^whsec_/);
    const list = await call(member, 'GET', '/api/v1/alerts/channels');
    expect(list.items).toEqual([{ id: created.channel.id, name: 'ops hook', kind: 'webhook', target: new URL(base).host, createdAt: iso(at(30)) }]);
    expect(JSON.stringify(list)).not.toContain('secret-path');
    await call(admin, 'POST', '/api/v1/alerts/channels', { name: 'bad', kind: 'email', url: 'https://x.example' }, 400);
    await call(admin, 'POST', '/api/v1/alerts/channels', { name: 'bad', kind: 'webhook', url: 'ftp://x' }, 400);

    const test = await call(admin, 'POST', `/api/v1/alerts/channels/${created.channel.id}/test`);
    expect(test).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200 });
    const body = JSON.parse(receiver.at('/hook/secret-path')[0]!.body);
    expect(body).toMatchObject({ version: 1, type: 'test', status: 'firing', eventId: null });
    const log = await call(member, 'GET', `/api/v1/alerts/channels/${created.channel.id}/deliveries`);
    expect(log.items.map((delivery: { status: string }) => delivery.status)).toEqual(['delivered']);
  });

  it('refuses invalid rules with every problem listed, and unknown members', async () => {
    const bad = await asBrowser(app, admin, {
      method: 'POST',
      url: '/api/v1/alerts/rules',
      payload: { name: 'x', metric: 'apdex', service: 'checkout', operation: 'POST /checkout', tenant: 'acme', comparison: '<', threshold: 2, channels: ['nope'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('tenant: a tenant filter cannot be combined with an operation');
    expect(bad.json().error.message).toContain('threshold: an Apdex score lies between 0 and 1');
    expect(bad.json().error.message).toContain('channels: no channel nope');
    const unknown = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/alerts/rules', payload: { name: 'x', metric: 'p42', service: 's', comparison: '>', threshold: 1, extra: 1 } });
    expect(unknown.statusCode).toBe(400);
  });

  it('previews each metric over the last 24 hours from the rollups, and when the rule would have fired', async () => {
    const preview = (rule: Record<string, unknown>) => call(admin, 'POST', '/api/v1/alerts/preview', { service: 'checkout', comparison: '>', windowMinutes: 1, name: 'preview', ...rule });
    const valueAt = (series: { points: Array<{ minute: string; value: number | null }> }, n: number) => series.points.find((point) => point.minute === iso(at(n)))!.value;

    const rate = await preview({ metric: 'request-rate', threshold: 25 });
    expect(rate.points).toHaveLength(1440);
    expect(rate.to).toBe(iso(at(30)));
    expect([valueAt(rate, 5), valueAt(rate, 15), valueAt(rate, 29)]).toEqual([20, 30, 20]);
    expect(valueAt(rate, -5)).toBe(0);
    expect(rate.firing).toEqual([{ from: iso(at(10)), to: iso(at(20)) }]);

    const errors = await preview({ metric: 'error-rate', threshold: 20, forMinutes: 2 });
    expect([valueAt(errors, 5), valueAt(errors, 15), valueAt(errors, 22)]).toEqual([0, 10, 50]);
    expect(errors.firing).toEqual([{ from: iso(at(22)), to: iso(at(25)) }]);

    const tenant = await preview({ metric: 'error-rate', tenant: 'acme', threshold: 20 });
    expect(valueAt(tenant, 15)).toBe(30);
    expect(valueAt(tenant, 5)).toBeNull();

    const p99 = await preview({ metric: 'latency-p99', threshold: 1000 });
    const slowest = Math.max(...sent[7]!.map((occurrence) => occurrence.durationMs));
    expect(Math.abs(valueAt(p99, 7)! - slowest) / slowest).toBeLessThanOrEqual(0.02);

    // Durations stay far below the default T (500 ms): satisfied unless failed (frustrated).
    const apdex = await preview({ metric: 'apdex', comparison: '<', threshold: 0.9 });
    expect([valueAt(apdex, 5), valueAt(apdex, 22)]).toEqual([1, 0.5]);

    const groups = await preview({ metric: 'new-error-group', threshold: 0, windowMinutes: 5 });
    // The group appeared at minute 10 (the tenant's failures): counted while minute 10 is in the window.
    expect([valueAt(groups, 9), valueAt(groups, 10), valueAt(groups, 14), valueAt(groups, 15)]).toEqual([0, 1, 1, 0]);
  });

  it('creates, reads, changes, silences and deletes a rule; the evaluator records its history with evidence', async () => {
    const channels = await call(member, 'GET', '/api/v1/alerts/channels');
    const spec = { name: 'checkout errors', metric: 'error-rate', service: 'checkout', comparison: '>', threshold: 20, windowMinutes: 1, forMinutes: 1, channels: [channels.items[0].id] };
    const created = await call(admin, 'POST', '/api/v1/alerts/rules', spec, 201);
    expect(created).toMatchObject({ source: 'api', rule: spec, state: { state: 'ok', since: null }, silence: null });
    const id = created.id;
    expect((await call(member, 'GET', '/api/v1/alerts/rules')).items.map((rule: { id: string }) => rule.id)).toEqual([id]);
    await call(member, 'GET', '/api/v1/alerts/rules/alr_missing', undefined, 404);

    const changed = await call(admin, 'PUT', `/api/v1/alerts/rules/${id}`, { ...spec, threshold: 25 });
    expect(changed.rule.threshold).toBe(25);

    const series = await call(member, 'GET', `/api/v1/alerts/rules/${id}/series?hours=1`);
    expect(series.points).toHaveLength(60);
    expect(series.firing).toEqual([{ from: iso(at(21)), to: iso(at(25)) }]);

    const silence = await call(admin, 'POST', `/api/v1/alerts/rules/${id}/silence`, { until: iso(at(90)), reason: 'deploying' }, 201);
    expect(silence).toMatchObject({ ruleId: id, until: iso(at(90)), reason: 'deploying' });
    expect((await call(member, 'GET', `/api/v1/alerts/rules/${id}`)).silence).toEqual({ until: iso(at(90)), reason: 'deploying' });
    await call(admin, 'POST', `/api/v1/alerts/rules/${id}/silence`, { until: iso(at(1)), reason: 'past' }, 400);
    await call(admin, 'DELETE', `/api/v1/alerts/rules/${id}/silence`, undefined, 204);
    expect((await call(member, 'GET', `/api/v1/alerts/rules/${id}`)).silence).toBeNull();

    // Evaluate minutes 29.. (the evaluator starts at the last ended minute) with more failing data.
    clock.set(at(30));
    await app.alerts.evaluator.runOnce();
    for (let n = 30; n < 33; n += 1) await ingestMinute(app, at(n), { requests: 20, errorShare: 0.5 });
    clock.set(at(33));
    await app.alerts.evaluator.runOnce();
    await app.alerts.notifier.runOnce();
    const events = await call(member, 'GET', `/api/v1/alerts/events?ruleId=${id}`);
    expect(events.items.map((event: { from: string; to: string; minute: string }) => [event.from, event.to, event.minute])).toEqual([
      ['pending', 'firing', iso(at(31))],
      ['ok', 'pending', iso(at(30))],
    ]);
    const firing = events.items[0];
    expect(firing).toMatchObject({ value: 50, threshold: 25, silenced: false, ruleName: 'checkout errors' });
    expect(firing.evidence.traces).toHaveLength(3);
    expect(firing.deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1 })]);
    expect((await call(member, 'GET', `/api/v1/alerts/rules/${id}`)).state).toMatchObject({ state: 'firing', since: iso(at(31)), value: 50, evaluatedAt: iso(at(32)) });
    const paged = await call(member, 'GET', `/api/v1/alerts/events?limit=1`);
    expect(paged.items).toHaveLength(1);
    expect((await call(member, 'GET', `/api/v1/alerts/events?limit=1&before=${paged.nextBefore}`)).items[0].id).toBeLessThan(paged.items[0].id);
    // The history page's filters: the state entered and the minutes' range [from, to).
    const minutesOf = async (query: string) => (await call(member, 'GET', `/api/v1/alerts/events?${query}`)).items.map((event: { to: string; minute: string }) => [event.to, event.minute]);
    expect(await minutesOf(`ruleId=${id}&state=firing`)).toEqual([['firing', iso(at(31))]]);
    expect(await minutesOf(`ruleId=${id}&state=resolved`)).toEqual([]);
    expect(await minutesOf(`ruleId=${id}&from=${iso(at(31))}`)).toEqual([['firing', iso(at(31))]]);
    expect(await minutesOf(`ruleId=${id}&to=${iso(at(31))}`)).toEqual([['pending', iso(at(30))]]);
    expect(await minutesOf(`ruleId=${id}&from=${iso(at(30))}&to=${iso(at(32))}&state=pending`)).toEqual([['pending', iso(at(30))]]);
    await call(member, 'GET', `/api/v1/alerts/events?from=${iso(at(31))}&to=${iso(at(30))}`, undefined, 400);
    await call(member, 'GET', '/api/v1/alerts/events?state=exploded', undefined, 400);
    await call(member, 'GET', '/api/v1/alerts/events?from=yesterday', undefined, 400);

    const exported = await asBrowser(app, member, { method: 'GET', url: '/api/v1/alerts/export' });
    expect(exported.headers['content-type']).toContain('application/yaml');
    expect(parseRulesFile('export.yaml', exported.body)).toEqual([{ id: expect.stringMatching(/^file_/), spec: { ...spec, threshold: 25 } }]);
    const json = await asBrowser(app, member, { method: 'GET', url: '/api/v1/alerts/export?format=json' });
    expect(JSON.parse(json.body)).toEqual({ version: 1, rules: [{ ...spec, threshold: 25 }] });

    await call(admin, 'DELETE', `/api/v1/alerts/rules/${id}`, undefined, 204);
    await call(member, 'GET', `/api/v1/alerts/rules/${id}`, undefined, 404);
    expect((await call(member, 'GET', `/api/v1/alerts/events?ruleId=${id}`)).items).toHaveLength(2);
  });
});

describe('alerts as code (ALERT_RULES_FILE)', () => {
  let database: TestDatabase;
  let app: App | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'alert-rules-'));
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await app?.close();
    await database.dispose();
  });

  it('lists every problem of a file', () => {
    const text = [
      'version: 1',
      'rules:',
      '  - name: a',
      '    metric: latency-p42',
      '    service: checkout',
      '    comparison: ">"',
      '    threshold: 1',
      '  - name: b',
      '    metric: error-rate',
      '    service: checkout',
      '    comparison: ">"',
      '    threshold: 500',
      '    surprise: true',
      '  - name: b',
      '    metric: error-rate',
      '    service: checkout',
      '    comparison: ">"',
      '    threshold: 50',
    ].join('\n');
    let error: AlertRulesFileError | undefined;
    try {
      parseRulesFile('rules.yaml', text);
    } catch (caught) {
      error = caught as AlertRulesFileError;
    }
    expect(error).toBeInstanceOf(AlertRulesFileError);
    expect(error!.problems.some((problem) => problem.startsWith('rules[0].metric:'))).toBe(true);
    expect(error!.problems.some((problem) => problem.startsWith('rules[1].surprise:') || problem.startsWith('rules[1]:'))).toBe(true);
    expect(() => parseRulesFile('rules.yaml', text.replace('latency-p42', 'latency-p99').replace('    surprise: true\n', ''))).toThrow(
      /rules\[1\]\.threshold: an error rate is a percentage[\s\S]*rules\[2\]\.name: "b" is also the name of rules\[1\]/,
    );
    expect(() => parseRulesFile('rules.json', '{"version": 1, "rules": [')).toThrow(/not valid JSON/);
  });

  it('loads the file at start: its rules are listed as file rules and refused changes; a bad file stops the start', async () => {
    const file = join(dir, 'rules.json');
    writeFileSync(file, JSON.stringify({ version: 1, rules: [{ name: 'slow checkout', metric: 'latency-p95', service: 'checkout', comparison: '>', threshold: 800 }] }));
    app = await buildTestApp(database, { ...alertTestEnv, ALERT_RULES_FILE: file });
    const admin = await setUpFirstAdmin(app);
    const list = (await asBrowser(app, admin, { method: 'GET', url: '/api/v1/alerts/rules' })).json();
    expect(list.rulesFile).toBe(file);
    expect(list.items).toEqual([expect.objectContaining({ source: 'file', rule: expect.objectContaining({ name: 'slow checkout', windowMinutes: 5, forMinutes: 0 }) })]);
    const id = list.items[0].id;
    const refused = await asBrowser(app, admin, { method: 'PUT', url: `/api/v1/alerts/rules/${id}`, payload: { ...list.items[0].rule, threshold: 1 } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('alert-rule-read-only');
    expect((await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/alerts/rules/${id}` })).statusCode).toBe(409);
    await app.close();
    app = undefined;

    writeFileSync(file, JSON.stringify({ version: 1, rules: [{ name: 'x', metric: 'apdex', service: 's', comparison: '<', threshold: 3 }, { name: 'y' }] }));
    await expect(buildTestApp(database, { ...alertTestEnv, ALERT_RULES_FILE: file })).rejects.toThrow(/rules\[1\]/);
  }, 120_000); // two service starts, and an argon2 hash, on a loaded machine
});
