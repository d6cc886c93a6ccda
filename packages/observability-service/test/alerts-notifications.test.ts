import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, fakeSmtpServer } from '@playstack/server-kit/testing';
import { createChannel, newSigningSecret } from '../src/alerts/alert-channels.js';
import { ChannelSealer } from '../src/alerts/channel-secrets.js';
import type { AlertRuleSpec } from '../src/alerts/alert-rule.js';
import { addSilence, insertRule, newRuleId } from '../src/alerts/alert-store.js';
import { alertTestEnv, ingestMinute } from './support/alert-data.js';
import { HttpReceiver } from './support/http-receiver.js';
import { buildTestApp } from './support/test-app.js';

const minute = 60_000;
const start = Date.parse('2026-11-10T12:00:00.000Z');
const at = (n: number) => start + n * minute;
const errorShareAt = (n: number) => (n >= 3 && n <= 5 ? 0.5 : 0);

describeEachDatabase('alert notifications', (database) => {
  const clock = new ManualClock(at(0));
  // The webhook's first two deliveries are answered 500; Slack's always 200.
  const receiver = new HttpReceiver((path, previous) => (path === '/webhook' && previous < 2 ? 500 : 200));
  const smtp = fakeSmtpServer();
  const secret = newSigningSecret();
  let base = '';
  let app: App;
  let webhookId = '';

  beforeAll(async () => {
    base = await receiver.listen();
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    app = await buildTestApp(database(), { ...alertTestEnv, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PUBLIC_URL: 'https://dash.example.com' }, { clock });
    for (let n = 0; n < 10; n += 1) await ingestMinute(app, at(n), { requests: 10, errorShare: errorShareAt(n) });
    const db = app.database.db;
    const webhook = await createChannel(db, app.alerts.sealer, { name: 'ops webhook', config: { kind: 'webhook', url: `${base}/webhook`, secret } }, start, null);
    webhookId = webhook.id;
    const slack = await createChannel(db, app.alerts.sealer, { name: 'ops slack', config: { kind: 'slack', url: `${base}/slack` } }, start, null);
    const email = await createChannel(db, app.alerts.sealer, { name: 'on call', config: { kind: 'email', to: ['oncall@example.com'] } }, start, null);
    const spec: AlertRuleSpec = { name: 'checkout failing', metric: 'error-rate', service: 'checkout', comparison: '>', threshold: 20, windowMinutes: 1, forMinutes: 0, channels: [webhook.id, slack.id, email.id] };
    await insertRule(db, { id: newRuleId(), source: 'api', spec }, start, null);
    const silenced = newRuleId();
    await insertRule(db, { id: silenced, source: 'api', spec: { ...spec, name: 'silenced twin' } }, start, null);
    await addSilence(db, { ruleId: silenced, until: at(60), reason: 'deploy', createdBy: null, createdAt: start });
  });
  afterAll(async () => {
    await app?.close();
    await receiver.close();
    await new Promise((resolve) => smtp.server.close(resolve));
  });

  const evaluateThrough = async (n: number) => {
    clock.set(at(n + 1));
    await app.alerts.evaluator.runOnce();
  };

  it('stores channel URLs and the signing secret sealed, never in plain text, and opens them only with the service secret', async () => {
    const rows = await sql<{ sealed_config: string; target_hint: string }>`select sealed_config, target_hint from alert_channels`.execute(app.database.db);
    const stored = JSON.stringify(rows.rows);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('/webhook');
    expect(stored).not.toContain('/slack');
    expect(rows.rows.map((row) => row.target_hint).sort()).toEqual([new URL(base).host, new URL(base).host, 'oncall@example.com']);
    const other = new ChannelSealer([Buffer.from('another service secret, 32 bytes or more')]);
    expect(() => other.open(rows.rows[0]!.sealed_config)).toThrow(/sealed with a secret this instance does not have/);
  });

  it('sends the firing notification to the webhook (signed, retried with backoff after two 500s), Slack and email; a silenced rule sends nothing', async () => {
    await evaluateThrough(3);
    expect(await app.alerts.notifier.runOnce()).toBe(3);
    expect(receiver.at('/webhook')).toHaveLength(1);
    expect(receiver.at('/slack')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);

    // Not due again before the first backoff (30 s).
    clock.set(at(4) + 29_000);
    expect(await app.alerts.notifier.runOnce()).toBe(0);
    clock.set(at(4) + 30_000);
    expect(await app.alerts.notifier.runOnce()).toBe(1);
    clock.set(at(4) + 30_000 + 119_000);
    expect(await app.alerts.notifier.runOnce()).toBe(0);
    clock.set(at(4) + 30_000 + 120_000);
    expect(await app.alerts.notifier.runOnce()).toBe(1);
    const deliveries = receiver.at('/webhook');
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((delivery) => delivery.body)).size).toBe(1);

    const [log] = await app.alerts.notifier.channelDeliveries(webhookId, 10);
    expect(log).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null });

    const delivered = deliveries[2]!;
    const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivered.headers['x-alert-signature']))!;
    expect(signature).toBe(createHmac('sha256', secret).update(`${timestamp}.${delivered.body}`).digest('hex'));
    expect(delivered.headers['content-type']).toBe('application/json');

    const body = JSON.parse(delivered.body);
    expect(body).toMatchObject({
      version: 1,
      type: 'alert',
      status: 'firing',
      rule: { name: 'checkout failing', metric: 'error-rate', service: 'checkout', comparison: '>', threshold: 20, windowMinutes: 1, forMinutes: 0 },
      minute: new Date(at(3)).toISOString(),
      evidence: { value: 50, threshold: 20, comparison: '>', metric: 'error-rate' },
    });
    expect(body.evidence.dashboardUrl).toMatch(/^https:\/\/dash\.example\.com\/services\/checkout\?from=/);
    expect(body.evidence.traces).toHaveLength(3);
    for (const trace of body.evidence.traces) {
      expect(trace).toMatchObject({ status: 'error', url: `https://dash.example.com/traces/${trace.traceId}` });
      expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(body.evidence.errorGroups).toEqual([
      expect.objectContaining({ type: 'PaymentDeclined', message: 'card declined', topFrames: ['at charge (/srv/app/src/billing/charge.ts:41:7)', 'at handle (/srv/app/src/http/router.ts:12:3)'] }),
    ]);

    const slack = JSON.parse(receiver.at('/slack')[0]!.body);
    expect(slack.text).toContain('*FIRING checkout failing: error-rate 50% > 20% (checkout)*');
    expect(slack.text).toContain(body.evidence.traces[0].traceId);
    expect(slack.text).toContain('at charge (/srv/app/src/billing/charge.ts:41:7)');

    const mail = smtp.messages[0]!;
    expect(mail.to).toEqual([expect.stringContaining('oncall@example.com')]);
    expect(mail.data).toContain('Subject: [alert] FIRING checkout failing');
    expect(mail.data).toContain(body.evidence.traces[0].traceId);
    expect(mail.data).toContain('PaymentDeclined: card declined');
  });

  it('sends the resolved notification too, with its value and evidence', async () => {
    await evaluateThrough(6);
    expect(await app.alerts.notifier.runOnce()).toBe(3);
    const resolved = JSON.parse(receiver.at('/webhook').at(-1)!.body);
    expect(resolved).toMatchObject({ status: 'resolved', minute: new Date(at(6)).toISOString(), evidence: { value: 0, threshold: 20 } });
    // Its evidence too: the window's slowest traces (none failed any more), the link, and the error group of the stretch it ends.
    expect(resolved.evidence.traces).toHaveLength(3);
    for (const trace of resolved.evidence.traces) expect(trace).toMatchObject({ status: 'ok', url: `https://dash.example.com/traces/${trace.traceId}` });
    expect(resolved.evidence.dashboardUrl).toMatch(/^https:\/\/dash\.example\.com\/services\/checkout\?from=/);
    expect(resolved.evidence.errorGroups).toEqual([
      expect.objectContaining({ type: 'PaymentDeclined', message: 'card declined', topFrames: ['at charge (/srv/app/src/billing/charge.ts:41:7)', 'at handle (/srv/app/src/http/router.ts:12:3)'] }),
    ]);
    expect(smtp.messages.at(-1)!.data).toContain(resolved.evidence.traces[0].traceId);
    expect(JSON.parse(receiver.at('/slack').at(-1)!.body).text).toContain('RESOLVED checkout failing');
    expect(smtp.messages.at(-1)!.data).toContain('Subject: [alert] RESOLVED checkout failing');
    expect(receiver.at('/webhook')).toHaveLength(4);
    expect(receiver.at('/slack')).toHaveLength(2);
    expect(smtp.messages).toHaveLength(2);
  });

  it('gives up after the last retry, logging each failed attempt', async () => {
    const dead = await createChannel(app.database.db, app.alerts.sealer, { name: 'dead', config: { kind: 'webhook', url: `${base}/gone`, secret } }, clock.now(), null);
    const failing = new HttpReceiver(() => 503);
    const failingBase = await failing.listen();
    const broken = await createChannel(app.database.db, app.alerts.sealer, { name: 'broken', config: { kind: 'webhook', url: `${failingBase}/hook`, secret } }, clock.now(), null);
    await failing.close();
    const first = await app.alerts.notifier.sendTest(broken.id, JSON.parse(receiver.at('/webhook')[0]!.body));
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(first.lastError).toMatch(/request failed/);
    for (const delayMs of [30_000, 120_000, 600_000, 1_800_000, 7_200_000]) {
      clock.advance(delayMs);
      expect(await app.alerts.notifier.runOnce()).toBe(1);
    }
    expect((await app.alerts.notifier.channelDeliveries(broken.id, 10))[0]).toMatchObject({ status: 'failed', attempts: 6 });
    expect((await app.alerts.notifier.sendTest(dead.id, JSON.parse(receiver.at('/webhook')[0]!.body))).status).toBe('delivered');
  });
});
