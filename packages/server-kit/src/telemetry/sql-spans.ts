import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { recordFailure, recordingSpanActive, type Tracing } from './tracing.js';

/** `db.system.name` of the semantic conventions (and the older `db.system`). */
export type DbSystem = 'sqlite' | 'postgresql';

const traced = Symbol('traced');
const statementsKept = 2_000;

/** The statement's first keyword and the table it reads or writes, for the span name. */
function operationOf(sqlText: string): { operation: string | undefined; table: string | undefined } {
  const operation = /^\s*([a-z]+)/i.exec(sqlText)?.[1]?.toUpperCase();
  const table = /\b(?:from|into|update|join)\s+"?([\w.]+)"?/i.exec(sqlText)?.[1];
  return { operation, table };
}

/** Starts the CLIENT span of a statement (see `tracedDialect`), its name and attributes worked out once per statement text. */
export type StatementSpanStarter = (sqlText: string) => Span;

/** The span starter of a database's statements: `db.system`/`db.system.name`, `db.namespace`, the statement, its operation and table. */
export function statementSpans(tracing: Tracing, system: DbSystem, namespace: string): StatementSpanStarter {
  // A service runs a few hundred distinct statements: each one's span name and attributes are
  // worked out once (the map is emptied should it ever pass `statementsKept`).
  const statements = new Map<string, { name: string; attributes: Attributes }>();
  return (sqlText) => {
    let known = statements.get(sqlText);
    if (!known) {
      const { operation, table } = operationOf(sqlText);
      const attributes: Attributes = {
        'db.system': system,
        'db.system.name': system,
        'db.namespace': namespace,
        'db.query.text': sqlText,
        ...(operation ? { 'db.operation.name': operation } : {}),
        ...(table ? { 'db.collection.name': table } : {}),
      };
      known = { name: operation ? (table ? `${operation} ${table}` : operation) : system, attributes };
      if (statements.size >= statementsKept) statements.clear();
      statements.set(sqlText, known);
    }
    // A statement starts no work of its own: its span is a child of the active one, not made
    // active itself (no context switch per statement). Its attributes are set once it is
    // started: given to startSpan they would be checked and copied twice more for the sampler,
    // and no sampler the OTEL_TRACES_SAMPLER variable names reads them.
    const span = tracing.tracer.startSpan(known.name, { kind: SpanKind.CLIENT });
    span.setAttributes(known.attributes);
    return span;
  };
}

/** Runs a statement that answers at once in its span when a recording span is active (`statementSpans`). */
export function inStatementSpan<R>(startSpan: StatementSpanStarter | undefined, sqlText: string, run: () => QueryResult<R>): QueryResult<R> {
  if (!startSpan || !recordingSpanActive()) return run();
  const span = startSpan(sqlText);
  try {
    const result = run();
    span.setAttribute('db.response.returned_rows', result.rows.length);
    return result;
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A Kysely dialect whose queries are CLIENT spans (`SELECT game_runs`, from `statementSpans`:
 * the statement as `db.query.text`, bound values never included, `db.system`/`db.system.name`,
 * the operation and table) when a recording span is active (a sampled request's): work outside
 * any request starts no root spans.
 */
export function tracedDialect(dialect: Dialect, statementSpan: StatementSpanStarter): Dialect {
  const createDriver = dialect.createDriver.bind(dialect);
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: (): Driver => {
      const driver = createDriver();
      const acquireConnection = driver.acquireConnection.bind(driver);
      const instrument = (connection: DatabaseConnection & { [traced]?: true }): DatabaseConnection => {
        if (!connection[traced]) {
          connection[traced] = true;
          const executeQuery = connection.executeQuery.bind(connection);
          connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
            if (!recordingSpanActive()) return executeQuery<R>(query);
            const span = statementSpan(query.sql);
            const failed = (error: unknown) => {
              recordFailure(span, error);
              span.end();
              throw error;
            };
            let running: Promise<QueryResult<R>>;
            try {
              // A driver may throw at once (SQLite's, on a constraint) rather than reject.
              running = executeQuery<R>(query);
            } catch (error) {
              return failed(error);
            }
            return running.then((result) => {
              span.setAttribute('db.response.returned_rows', result.rows.length);
              span.end();
              return result;
            }, failed);
          };
        }
        return connection;
      };
      // One `then` per acquisition, no async wrapper: every query, sampled or not, passes here.
      driver.acquireConnection = () => acquireConnection().then(instrument);
      return driver;
    },
  };
}
