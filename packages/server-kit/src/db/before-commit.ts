import type { Kysely } from 'kysely';

/** A transaction (or any runner of statements) of any database. */
type StatementRunner = Pick<Kysely<never>, 'getExecutor'>;

/** Runs the items gathered under one key in one statement (or a few) of the transaction. */
export type GatheredStatement = (trx: StatementRunner, items: readonly string[]) => Promise<unknown>;

/** Per gathering transaction: the items gathered by key, and how each key's are run. */
const gathering = new WeakMap<object, Map<string, { items: Set<string>; run: GatheredStatement }>>();

/**
 * Statements a transaction's writes defer to just before its commit, gathered so that many
 * writes sharing it (a group commit) run one statement instead of one each: the writer that owns
 * the transaction calls `gatherBeforeCommit` when it opens it and `runGathered` as its last work
 * before the commit. Items are deduplicated by key; a transaction nobody gathers for runs its
 * statements at once (`deferToCommit` answers false).
 */
export function gatherBeforeCommit(trx: StatementRunner): void {
  gathering.set(trx, new Map());
}

/** Adds `item` under `key` when the transaction gathers (true), else leaves the caller to run it now (false). */
export function deferToCommit(trx: StatementRunner, key: string, item: string, run: GatheredStatement): boolean {
  const pending = gathering.get(trx);
  if (!pending) return false;
  let gathered = pending.get(key);
  if (!gathered) {
    gathered = { items: new Set(), run };
    pending.set(key, gathered);
  }
  gathered.items.add(item);
  return true;
}

/** Runs what the transaction gathered (and stops gathering): call it last before the commit. */
export async function runGathered(trx: StatementRunner): Promise<void> {
  const pending = gathering.get(trx);
  if (!pending) return;
  gathering.delete(trx);
  for (const { items, run } of pending.values()) await run(trx, [...items]);
}
