import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { AlertRuleSpec } from '../src/alerts/alert-rule.js';
import { addSilence, insertRule, listEvents, newRuleId, ruleStates } from '../src/alerts/alert-store.js';
import { alertTestEnv, ingestMinute } from './support/alert-data.js';
import { buildTestApp } from './support/test-app.js';

const minute = 60_000;
const start = Date.parse('2026-11-10T12:00:00.000Z');
const at = (n: number) => start + n * minute;

/** Failing minutes of the generated data set: 3 to 8 (half the requests fail), otherwise 1 in 20 (5%). */
const errorShareAt = (n: number) => (n >= 3 && n <= 8 ? 0.5 : 0.05);

const errorRule: AlertRuleSpec = { name: 'checkout failing', metric: 'error-rate', service: 'checkout', comparison: '>', threshold: 20, windowMinutes: 1, forMinutes: 2, channels: [] };

async function addRule(app: App, spec: AlertRuleSpec): Promise<string> {
  const id = newRuleId();
  await insertRule(app.database.db, { id, source: 'api', spec }, start, null);
  return id;
}

const transitions = async (app: App, ruleId: string) =>
  (await listEvents(app.database.db, { ruleId, limit: 100 })).reverse().map((event) => ({ from: event.from, to: event.to, minute: (event.minute - start) / minute }));

describeEachDatabase('alert evaluation with an injected clock', (database) => {
  const clock = new ManualClock(at(0));
  let app: App;
  let ruleId: string;
  let silencedId: string;
  let slowestFailing: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp(database(), alertTestEnv, { clock });
    for (let n = 0; n < 14; n += 1) {
      const traces = await ingestMinute(app, at(n), { requests: 20, errorShare: errorShareAt(n), durationMs: n >= 3 && n <= 8 ? 400 : 40 });
      if (n === 5) slowestFailing = traces.map((trace) => trace.traceId);
    }
    ruleId = await addRule(app, errorRule);
    silencedId = await addRule(app, { ...errorRule, name: 'checkout failing (silenced)' });
    await addSilence(app.database.db, { ruleId: silencedId, until: at(60), reason: 'maintenance window', createdBy: null, createdAt: at(0) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('evaluates each minute once it has ended: pending when breached, firing after "for", resolved when it clears', async () => {
    const evaluated: number[] = [];
    const states: string[] = [];
    for (let n = 1; n <= 12; n += 1) {
      clock.set(at(n));
      evaluated.push(...(await app.alerts.evaluator.runOnce()).map((m) => (m - start) / minute));
      expect(await app.alerts.evaluator.runOnce()).toEqual([]);
      states.push((await ruleStates(app.database.db as never)).get(ruleId)!.state);
    }
    expect(evaluated).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(states).toEqual(['ok', 'ok', 'ok', 'pending', 'pending', 'firing', 'firing', 'firing', 'firing', 'resolved', 'resolved', 'resolved']);
    expect(await transitions(app, ruleId)).toEqual([
      { from: 'ok', to: 'pending', minute: 3 },
      { from: 'pending', to: 'firing', minute: 5 },
      { from: 'firing', to: 'resolved', minute: 9 },
    ]);
  });

  it('stores each transition with its value, threshold and evidence: the slowest failing traces and the error group with its frames', async () => {
    const [, firing] = (await listEvents(app.database.db, { ruleId, limit: 100 })).reverse();
    expect(firing).toMatchObject({ to: 'firing', value: 50, threshold: 20, silenced: false, ruleName: 'checkout failing' });
    const evidence = firing!.evidence as { traces: Array<{ traceId: string; status: string }>; errorGroups: Array<{ type: string; message: string; topFrames: string[] }>; dashboardUrl: string };
    expect(evidence.traces.map((trace) => trace.status)).toEqual(['error', 'error', 'error']);
    // The failing requests are the first half of the minute's; the slowest failing three are among them.
    const failing = new Set(slowestFailing);
    for (const trace of evidence.traces) expect(failing.has(trace.traceId)).toBe(true);
    expect(evidence.errorGroups).toEqual([
      expect.objectContaining({ type: 'PaymentDeclined', message: 'card declined', topFrames: ['at charge (/srv/app/src/billing/charge.ts:41:7)', 'at handle (/srv/app/src/http/router.ts:12:3)'] }),
    ]);
    expect(evidence.dashboardUrl).toBe(`/services/checkout?from=${encodeURIComponent(new Date(at(5)).toISOString())}&to=${encodeURIComponent(new Date(at(6)).toISOString())}`);
  });

  it('stores a silenced rule\'s transitions as silenced', async () => {
    const events = (await listEvents(app.database.db, { ruleId: silencedId, limit: 100 })).reverse();
    expect(events.map((event) => [event.to, event.silenced])).toEqual([
      ['pending', true],
      ['firing', true],
      ['resolved', true],
    ]);
  });
});

describeEachDatabase('alert evaluation on several instances', (database) => {
  const clockA = new ManualClock(at(0));
  const clockB = new ManualClock(at(0));
  let a: App;
  let b: App;
  let ruleId: string;

  beforeAll(async () => {
    a = await buildTestApp(database(), alertTestEnv, { clock: clockA });
    b = await buildTestApp(database(), alertTestEnv, { clock: clockB });
    for (let n = 0; n < 14; n += 1) await ingestMinute(a, at(n), { requests: 20, errorShare: errorShareAt(n) });
    ruleId = await addRule(a, errorRule);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('evaluates every minute on exactly one instance, the one holding the lease, and another takes over when the lease expires', async () => {
    const byA: number[] = [];
    const byB: number[] = [];
    for (let n = 1; n <= 4; n += 1) {
      clockA.set(at(n));
      clockB.set(at(n));
      const [fromA, fromB] = await Promise.all([a.alerts.evaluator.runOnce(), b.alerts.evaluator.runOnce()]);
      byA.push(...fromA);
      byB.push(...fromB);
    }
    // One of them took the lease at the first minute and kept it.
    const [holder, other, holderClock, otherClock, holderMinutes, otherMinutes] = byA.length > 0 ? [a, b, clockA, clockB, byA, byB] : [b, a, clockB, clockA, byB, byA];
    expect(holderMinutes.map((m) => (m - start) / minute)).toEqual([0, 1, 2, 3]);
    expect(otherMinutes).toEqual([]);

    // The holder stops (it crashed: no release). The other takes over once the lease has expired, from where the holder left.
    holderClock.set(at(5));
    otherClock.set(at(5) + 20_000);
    expect(await other.alerts.evaluator.runOnce()).toEqual([]);
    otherClock.set(at(8));
    const takenOver = (await other.alerts.evaluator.runOnce()).map((m) => (m - start) / minute);
    expect(takenOver).toEqual([4, 5, 6, 7]);
    expect(await holder.alerts.evaluator.runOnce()).toEqual([]);
    expect(await transitions(a, ruleId)).toEqual([
      { from: 'ok', to: 'pending', minute: 3 },
      { from: 'pending', to: 'firing', minute: 5 },
    ]);
  });

  it('never evaluates a minute twice when two instances run at the same moment', async () => {
    for (let n = 9; n <= 13; n += 1) {
      clockA.set(at(n) + 5 * minute);
      clockB.set(at(n) + 5 * minute);
      await Promise.all([a.alerts.evaluator.runOnce(), b.alerts.evaluator.runOnce()]);
    }
    const states = await ruleStates(a.database.db as never);
    expect(states.get(ruleId)).toMatchObject({ state: 'resolved', evaluatedMinute: at(17) });
    const events = await transitions(a, ruleId);
    expect(events).toEqual([
      { from: 'ok', to: 'pending', minute: 3 },
      { from: 'pending', to: 'firing', minute: 5 },
      { from: 'firing', to: 'resolved', minute: 9 },
    ]);
  });
});

describeEachDatabase('alert evaluation after a restart', (database) => {
  const clock = new ManualClock(at(0));
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('catches up the minutes missed while no instance ran, in order, firing and resolving at the minutes the data says', async () => {
    app = await buildTestApp(database(), alertTestEnv, { clock });
    for (let n = 0; n < 14; n += 1) await ingestMinute(app, at(n), { requests: 20, errorShare: errorShareAt(n) });
    const ruleId = await addRule(app, errorRule);
    clock.set(at(2));
    expect((await app.alerts.evaluator.runOnce()).map((m) => (m - start) / minute)).toEqual([1]);
    await app.close();

    clock.set(at(13));
    app = await buildTestApp(database(), alertTestEnv, { clock });
    expect((await app.alerts.evaluator.runOnce()).map((m) => (m - start) / minute)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await transitions(app, ruleId)).toEqual([
      { from: 'ok', to: 'pending', minute: 3 },
      { from: 'pending', to: 'firing', minute: 5 },
      { from: 'firing', to: 'resolved', minute: 9 },
    ]);
  }, 120_000); // two service starts on a loaded machine
});
