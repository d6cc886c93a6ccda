import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import { directStatementsOf, prepareOnPostgres } from '@playstack/server-kit';
import type { Awaitable } from './awaitable.js';

/** Where a named argument goes in a query compiled once: replaced by the argument on each run. */
class Slot {
  constructor(readonly name: string) {}
}

/** What a precompiled query runs on: the database or a transaction of it. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/** Hands out the placeholder of a named argument, typed as the argument so the builder accepts it. */
export type ArgumentOf<Args> = <K extends keyof Args & string>(name: K) => Args[K];

/**
 * A query built and compiled by Kysely once, then run many times with new arguments: on the run
 * path building and compiling a query cost more CPU than SQLite took to run it. Compiled with the
 * database it is built on (so in that dialect); runs on that database or any transaction of it.
 * On PostgreSQL its text is a named prepared statement of each connection (`prepareOnPostgres`).
 */
export class PrecompiledQuery<Args, Row> {
  readonly #compiled: CompiledQuery<Row>;
  /** For each parameter of the compiled SQL: the argument it takes, or the constant the builder gave. */
  readonly #parameters: ReadonlyArray<{ argument: keyof Args & string } | { constant: unknown }>;

  constructor(build: (argument: ArgumentOf<Args>) => Compilable<Row>) {
    // A placeholder stands in for a value of any type: Kysely only carries it into the parameters.
    const placeholder: ArgumentOf<Args> = (name) => new Slot(name) as Args[typeof name];
    this.#compiled = build(placeholder).compile();
    // On PostgreSQL a named prepared statement: parsed and planned once per connection.
    prepareOnPostgres(this.#compiled.sql);
    this.#parameters = this.#compiled.parameters.map((value) =>
      value instanceof Slot ? { argument: value.name as keyof Args & string } : { constant: value },
    );
  }

  /**
   * Runs the query with these arguments. In a SQLite transaction whose owner lets its statements
   * run directly (the group commit: `runStatementsDirectly`), it runs on the connection at once,
   * not through Kysely's executor (a sampled request's statement is a span all the same), and
   * answers at once: its rows, or its throw (a flow, `runFlow`, then runs on without a promise).
   */
  execute(db: QueryRunner, args: Args): Awaitable<QueryResult<Row>> {
    const parameters = this.#parameters.map((p) => ('argument' in p ? args[p.argument] : p.constant));
    const statements = directStatementsOf(db);
    if (!statements) return db.executeQuery({ ...this.#compiled, parameters });
    return statements.execute<Row>(this.#compiled.sql, parameters);
  }
}

/**
 * Precompiled queries whose shape depends on a count (rows inserted, pairs matched): compiled
 * once per count, on first use.
 */
export class PrecompiledByCount<Args, Row> {
  readonly #byCount = new Map<number, PrecompiledQuery<Args, Row>>();
  readonly #build: (count: number, argument: ArgumentOf<Args>) => Compilable<Row>;

  constructor(build: (count: number, argument: ArgumentOf<Args>) => Compilable<Row>) {
    this.#build = build;
  }

  /** Runs the query compiled for `count` with these arguments. */
  execute(db: QueryRunner, count: number, args: Args): Awaitable<QueryResult<Row>> {
    let query = this.#byCount.get(count);
    if (!query) {
      query = new PrecompiledQuery<Args, Row>((argument) => this.#build(count, argument));
      this.#byCount.set(count, query);
    }
    return query.execute(db, args);
  }
}
