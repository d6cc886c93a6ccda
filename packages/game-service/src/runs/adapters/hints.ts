import { Type } from '@sinclair/typebox';
import type { DerivedResult, HintMismatch } from './adapter-type.js';

/** Client-side candidate hints: what the client believes it achieved, by output name. */
export const HintsSchema = Type.Record(Type.String({ maxLength: 80 }), Type.Unknown(), {
  maxProperties: 32,
  description: "client's own claims, by output name; compared with the derived result, never used",
});

/**
 * Compares a client's hints with the derived result. Hints are never trusted: an unknown name or
 * a differing value is a mismatch that flags the run, not a reason to change the result.
 */
export function compareHints(hints: Readonly<Record<string, unknown>> | undefined, result: DerivedResult): HintMismatch[] {
  if (hints === undefined) return [];
  const mismatches: HintMismatch[] = [];
  for (const name of Object.keys(hints).sort()) {
    const claimed = hints[name];
    const derived = Object.hasOwn(result, name) ? result[name]! : null;
    if (claimed !== derived) mismatches.push({ name, claimed, derived });
  }
  return mismatches;
}
