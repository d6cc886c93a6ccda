import { randomBytes } from 'node:crypto';
import type { Clock, Database } from '@playstack/server-kit';
import type { FastifyBaseLogger } from 'fastify';
import { minuteMs, minuteOf } from '../time-units.js';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { isBreached, type AlertRule } from './alert-rule.js';
import { nextState, type AlertState } from './alert-state.js';
import { gatherEvidence, type AlertEvidence } from './alert-evidence.js';
import { insertEvent, listRules, ruleStates, saveRuleStates, silencesAfter, type StoredRuleState } from './alert-store.js';
import { readRuleInputs, type RuleInputs } from './alert-values.js';
import { sharedEvidenceReads, type AlertReads } from '../telemetry/alert-reads.js';
import type { ObservabilityDatabase, ObservabilityTransaction } from '../database.js';

/** A stored transition, handed to the notifier inside the transaction that stores it. */
export interface AlertTransition {
  eventId: number;
  rule: AlertRule;
  from: AlertState;
  to: AlertState;
  minute: number;
  value: number | null;
  silenced: boolean;
  evidence: AlertEvidence;
}

export interface AlertEvaluatorOptions {
  database: Database<ObservabilityDatabase>;
  /** Where the telemetry rules are evaluated on is read (the telemetry store's tables). */
  reads: AlertReads;
  clock: Clock;
  logger: FastifyBaseLogger;
  apdexThresholds: ApdexThresholds;
  /** A minute is evaluated this long after it ends (late data still counts). */
  delayMs: number;
  /** How long a claimed lease lasts without being renewed. */
  leaseMs: number;
  /** Missed minutes caught up after a restart, at most (the newest ones). */
  maxCatchUpMinutes: number;
  publicUrl: string | undefined;
  /** Called for every transition, in its transaction (the notifier queues deliveries). */
  onTransition?: (trx: ObservabilityTransaction, transition: AlertTransition) => Promise<void>;
  /** Names this instance in the lease (default: random). */
  instanceId?: string;
}

const evaluatorRow = 'alerts';

/** Another instance evaluated the minute first: this one stops where it is. */
class MinuteTaken extends Error {}

/**
 * Evaluates every rule once per minute, on one instance at a time: an instance evaluates only
 * while it holds the lease in `alert_evaluator`, and advances the row's `evaluated_minute` from
 * the minute before to the minute in the same transaction as the minute's states and events, so
 * no minute is evaluated twice even if two instances overlapped. Minutes missed while no
 * instance ran are evaluated in order when one runs again (the newest `maxCatchUpMinutes`).
 */
export class AlertEvaluator {
  readonly #options: AlertEvaluatorOptions;
  readonly instanceId: string;
  #running: Promise<number[]> | undefined;

  constructor(options: AlertEvaluatorOptions) {
    this.#options = options;
    this.instanceId = options.instanceId ?? randomBytes(6).toString('hex');
  }

  /** Evaluates the minutes due now, if this instance holds (or takes) the lease; returns the minutes it evaluated. */
  runOnce(): Promise<number[]> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Gives the lease up (at shutdown), so another instance takes over at once. */
  async release(): Promise<void> {
    await this.#running?.catch(() => undefined);
    await this.#db().updateTable('alert_evaluator').set({ holder: null, lease_expires_at: 0 }).where('name', '=', evaluatorRow).where('holder', '=', this.instanceId).execute();
  }

  #db() {
    return this.#options.database.db;
  }

  async #claimLease(now: number): Promise<boolean> {
    const result = await this.#db()
      .updateTable('alert_evaluator')
      .set({ holder: this.instanceId, lease_expires_at: now + this.#options.leaseMs })
      .where('name', '=', evaluatorRow)
      .where((eb) => eb.or([eb('holder', '=', this.instanceId), eb('holder', 'is', null), eb('lease_expires_at', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async #run(): Promise<number[]> {
    const now = this.#options.clock.now();
    const lastDue = minuteOf(now - this.#options.delayMs) - minuteMs;
    if (!(await this.#claimLease(now))) return [];
    const row = await this.#db().selectFrom('alert_evaluator').select('evaluated_minute').where('name', '=', evaluatorRow).executeTakeFirstOrThrow();
    let evaluated = row.evaluated_minute === null ? null : Number(row.evaluated_minute);
    const first = Math.max(evaluated === null ? lastDue : evaluated + minuteMs, lastDue - (this.#options.maxCatchUpMinutes - 1) * minuteMs);
    if (first > lastDue) return [];

    const rules = await listRules(this.#options.database.db);
    const inputs = await readRuleInputs(this.#options.reads, rules, first, lastDue, this.#options.apdexThresholds);
    const states = await ruleStates(this.#db());
    const silences = await silencesAfter(this.#db(), first);
    const done: number[] = [];
    try {
      for (let minute = first; minute <= lastDue; minute += minuteMs) {
        const previous = evaluated;
        const changes = await this.#evaluateMinute(rules, inputs, states, silences, minute);
        await this.#db()
          .transaction()
          .execute(async (trx) => {
            let advance = trx.updateTable('alert_evaluator').set({ evaluated_minute: minute }).where('name', '=', evaluatorRow).where('holder', '=', this.instanceId);
            advance = previous === null ? advance.where('evaluated_minute', 'is', null) : advance.where('evaluated_minute', '=', previous);
            if (Number((await advance.executeTakeFirst()).numUpdatedRows) === 0) throw new MinuteTaken();
            await saveRuleStates(trx, changes.map((change) => ({ ruleId: change.rule.id, state: change.state })));
            for (const change of changes) {
              if (!change.transition) continue;
              const eventId = await insertEvent(trx, {
                ruleId: change.rule.id,
                ruleName: change.rule.name,
                from: change.transition.from,
                to: change.transition.to,
                minute,
                value: change.state.value,
                threshold: change.rule.threshold,
                silenced: change.transition.silenced,
                evidence: change.transition.evidence,
                createdAt: this.#options.clock.now(),
              });
              await this.#options.onTransition?.(trx, { eventId, rule: change.rule, ...change.transition, minute, value: change.state.value });
            }
          });
        for (const change of changes) states.set(change.rule.id, change.state);
        evaluated = minute;
        done.push(minute);
      }
    } catch (error) {
      if (!(error instanceof MinuteTaken)) throw error;
    }
    return done;
  }

  async #evaluateMinute(
    rules: readonly AlertRule[],
    inputs: RuleInputs,
    states: ReadonlyMap<string, StoredRuleState>,
    silences: Awaited<ReturnType<typeof silencesAfter>>,
    minute: number,
  ): Promise<Array<{ rule: AlertRule; state: StoredRuleState; transition?: { from: AlertState; to: AlertState; silenced: boolean; evidence: AlertEvidence } }>> {
    const changes = [];
    const reads = sharedEvidenceReads(this.#options.reads);
    for (const rule of rules) {
      const value = inputs.valueAt(rule, minute);
      const current = states.get(rule.id) ?? { state: 'ok' as const, sinceMinute: minute, value: null, evaluatedMinute: minute };
      const { next, transition } = nextState(current, isBreached(rule, value), minute, rule.forMinutes);
      const state = { state: next.state, sinceMinute: next.sinceMinute, value, evaluatedMinute: minute };
      if (!transition) {
        changes.push({ rule, state });
        continue;
      }
      const silenced = (silences.get(rule.id) ?? []).some((silence) => silence.until > minute);
      // Pending and back to ok notify no one: they keep the value, not the example traces.
      const notified = transition.to === 'firing' || transition.to === 'resolved';
      const firingSince = transition.to === 'resolved' ? current.sinceMinute : undefined;
      const evidence = await gatherEvidence(reads, rule, minute, value, inputs, this.#options.publicUrl, notified, firingSince);
      changes.push({ rule, state, transition: { ...transition, silenced, evidence } });
    }
    return changes;
  }
}
