import type { AdapterType } from './adapter-type.js';
import { boundedScore } from './bounded-score.js';
import { replay2048Adapter } from './replay-2048.js';

/**
 * Every adapter type the server can bind a game's adapters to, by type id. Callers validate
 * options and payloads against the type's schemas before calling `derive`.
 */
export const adapterTypes: ReadonlyMap<string, AdapterType> = new Map<string, AdapterType>(
  [boundedScore, replay2048Adapter].map((type): [string, AdapterType] => [type.id, type as AdapterType]),
);
