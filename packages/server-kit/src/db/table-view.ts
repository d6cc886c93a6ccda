import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';

/**
 * A view of a database restricted to `Tables`, for a module that owns some of a service's tables
 * (the kit's accounts module, over either service's database): `tableView<AccountsTables>()`
 * takes any `Kysely<DB>` or `Transaction<DB>` whose `DB` has those tables (both are named:
 * TypeScript does not infer `DB` from a transaction against `Kysely<DB>` alone). Kysely's
 * instance type is invariant in its database (its transaction and connection callbacks take it as
 * an argument), so a wider database is not assignable to a narrower one although every query on
 * the narrower one is valid on it. This is the one place that says so; Kysely 0.29's
 * `db.$pickTables()` does the same.
 */
export function tableView<Tables>(): <DB extends Tables>(db: Kysely<DB> | Transaction<DB>) => Kysely<Tables> {
  // The guard test (test/typed-storage.test.ts) allows this line, and only this one.
  return (db) => db as Kysely<any>;
}

/** The same for a whole `Database` (a store that also pings): its Kysely instance viewed as `Tables`, the rest as it is. */
export function databaseView<Tables>(): <DB extends Tables>(database: Database<DB>) => Database<Tables> {
  const view = tableView<Tables>();
  return (database) => ({ db: view(database.db), dialect: database.dialect, ping: () => database.ping(), close: () => database.close() });
}
