import { minuteMs } from '../time-units.js';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { isBreached, type AlertRule } from './alert-rule.js';
import { nextState, type RuleState } from './alert-state.js';
import { readRuleInputs } from './alert-values.js';
import type { AlertReads } from '../telemetry/alert-reads.js';

export interface RuleSeries {
  /** The watched value at each minute (over the window ending with it); null without data. */
  points: Array<{ minute: number; value: number | null }>;
  /** Stretches the rule would have been firing: from the minute it fired to the minute it resolved (null: still firing). */
  firing: Array<{ from: number; to: number | null }>;
}

/**
 * A rule replayed over the minutes `first` to `last`: its value each minute, and when it would
 * have fired, starting from ok (the sparkline of a rule, and the preview of a draft).
 */
export async function ruleSeries(reads: AlertReads, rule: AlertRule, first: number, last: number, apdexThresholds: ApdexThresholds): Promise<RuleSeries> {
  const inputs = await readRuleInputs(reads, [rule], first, last, apdexThresholds);
  const points: RuleSeries['points'] = [];
  const firing: RuleSeries['firing'] = [];
  let state: RuleState = { state: 'ok', sinceMinute: first };
  for (let minute = first; minute <= last; minute += minuteMs) {
    const value = inputs.valueAt(rule, minute);
    points.push({ minute, value });
    const { next, transition } = nextState(state, isBreached(rule, value), minute, rule.forMinutes);
    if (transition?.to === 'firing') firing.push({ from: minute, to: null });
    if (transition?.to === 'resolved') firing.at(-1)!.to = minute;
    state = next;
  }
  return { points, firing };
}
