import { createHash } from 'node:crypto';
import { mongodbCommandShape } from './mongodb-command-shape.js';
import { redisCommandShape } from './redis-command-shape.js';
import { sqlDialectOf, sqlStatementShape } from './sql-statement-shape.js';

/** `db.system` values of Redis and its protocol-compatible forks. */
const redisSystems = new Set(['redis', 'valkey', 'keydb', 'dragonfly']);

/** What else a statement's shape may use: the collection a MongoDB span names in its attributes. */
export interface StatementContext {
  collection?: string | undefined;
}

/**
 * The shape a statement is grouped under, by its database system (`db.system`): SQL by its
 * dialect's rules (sql-statement-shape.ts), Redis as command plus key shape
 * (redis-command-shape.ts), MongoDB as operation, collection and filter shape
 * (mongodb-command-shape.ts). Statements of other systems are left exactly as sent: their
 * syntax is unknown, and a wrong guess (a Redis key read as SQL) is worse than none.
 */
export function normalizeStatement(system: string, statement: string, context: StatementContext = {}): string {
  const lower = system.toLowerCase();
  if (redisSystems.has(lower)) return redisCommandShape(statement);
  if (lower === 'mongodb') return mongodbCommandShape(statement, context.collection);
  const dialect = sqlDialectOf(lower);
  return dialect ? sqlStatementShape(statement, dialect) : statement;
}

const hashCacheEntries = 10_000;
const hashes = new Map<string, string>();

/** The key a normalized statement is grouped under: 16 hex characters of its SHA-256. */
export function statementHash(normalized: string): string {
  let hash = hashes.get(normalized);
  if (hash === undefined) {
    hash = createHash('sha256').update(normalized, 'utf8').digest('hex').slice(0, 16);
    // Query shapes are few; a full cache means unusual traffic, and starting over is enough.
    if (hashes.size >= hashCacheEntries) hashes.clear();
    hashes.set(normalized, hash);
  }
  return hash;
}

/** The statement's verb (`SELECT`, `INSERT`, ...), or undefined for an empty statement. */
export function statementVerb(normalized: string): string | undefined {
  const match = /^[(\s]*([A-Za-z]+)/.exec(normalized);
  return match?.[1]?.toUpperCase();
}
