import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { recordFailure, recordingSpanActive, type Tracing } from './tracing.js';

/** `db.system.name` of the semantic conventions (and the older `db.system`). */
export type DbSystem = 'sqlite' | 'postgresql';

const traced = Symbol('traced');

/** The statement's first keyword and the table it reads or writes, for the span name. */
function operationOf(sqlText: string): { operation: string | undefined; table: string | undefined } {
  const operation = /^\s*([a-z]+)/i.exec(sqlText)?.[1]?.toUpperCase();
  const table = /\b(?:from|into|update|join)\s+"?([\w.]+)"?/i.exec(sqlText)?.[1];
  return { operation, table };
}

/**
 * A Kysely dialect whose queries are CLIENT spans (`SELECT game_runs`) with the statement
 * (`db.query.text`, bound values never included), `db.system`/`db.system.name`, the operation and
 * table, when a recording span is active (a sampled request's): work outside any request starts no root spans.
 */
export function tracedDialect(dialect: Dialect, tracing: Tracing, system: DbSystem, namespace: string): Dialect {
  const createDriver = dialect.createDriver.bind(dialect);
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: (): Driver => {
      const driver = createDriver();
      const acquireConnection = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => {
        const connection = (await acquireConnection()) as DatabaseConnection & { [traced]?: true };
        if (!connection[traced]) {
          connection[traced] = true;
          const executeQuery = connection.executeQuery.bind(connection);
          connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
            if (!recordingSpanActive()) return executeQuery<R>(query);
            const { operation, table } = operationOf(query.sql);
            const attributes: Attributes = {
              'db.system': system,
              'db.system.name': system,
              'db.namespace': namespace,
              'db.query.text': query.sql,
              ...(operation ? { 'db.operation.name': operation } : {}),
              ...(table ? { 'db.collection.name': table } : {}),
            };
            const name = operation ? (table ? `${operation} ${table}` : operation) : system;
            return tracing.tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
              try {
                const result = await executeQuery<R>(query);
                span.setAttribute('db.response.returned_rows', result.rows.length);
                return result;
              } catch (error) {
                recordFailure(span, error);
                throw error;
              } finally {
                span.end();
              }
            });
          };
        }
        return connection;
      };
      return driver;
    },
  };
}
