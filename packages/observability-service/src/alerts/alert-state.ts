import { minuteMs } from '../time-units.js';

export const alertStates = ['ok', 'pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof alertStates)[number];

export interface RuleState {
  state: AlertState;
  /** The minute the state was entered. */
  sinceMinute: number;
}

export interface Transition {
  from: AlertState;
  to: AlertState;
}

/**
 * The state after evaluating `minute`: breached minutes move ok (or resolved) to pending, and
 * pending to firing once the rule has been breached `forMinutes` minutes after the first (at
 * once when `forMinutes` is 0); a minute not breached ends pending (back to ok) and firing
 * (resolved). `transition` is undefined when the state stays.
 */
export function nextState(current: RuleState, breached: boolean, minute: number, forMinutes: number): { next: RuleState; transition: Transition | undefined } {
  const move = (to: AlertState) => ({ next: { state: to, sinceMinute: minute }, transition: { from: current.state, to } });
  const stay = { next: current, transition: undefined };
  if (breached) {
    if (current.state === 'ok' || current.state === 'resolved') return forMinutes === 0 ? move('firing') : move('pending');
    if (current.state === 'pending' && minute - current.sinceMinute >= forMinutes * minuteMs) return move('firing');
    return stay;
  }
  if (current.state === 'pending') return move('ok');
  if (current.state === 'firing') return move('resolved');
  return stay;
}
