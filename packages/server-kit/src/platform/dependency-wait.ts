import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { CommonConfig } from './service-app.js';
import { redactUrl } from '../config/redact-url.js';

/** A server a service needs before it can start: PostgreSQL or Redis, from its URL variable. */
export interface Dependency {
  /** The readiness check that stands for it once the service runs (`database`, `redis`). */
  readonly check: string;
  /** What a person calls it. */
  readonly what: 'PostgreSQL' | 'Redis';
  readonly variable: 'DATABASE_URL' | 'REDIS_URL';
  readonly url: string;
  /** Connects once and asks a trivial question; rejects (with PermanentFailure when retrying cannot help). */
  probe(timeoutMs: number): Promise<void>;
}

/** An answer retrying will not change: a wrong password, a database that does not exist. */
export class PermanentFailure extends Error {
  override name = 'PermanentFailure';
}

/** Why a dependency could not be reached, once and for all, in one line naming its variable. */
export class DependencyUnreachable extends Error {
  override name = 'DependencyUnreachable';
}

/** `DATABASE_URL=postgres://app:***@db:5432/app`: the variable and its value, password masked. */
export function describeSetting(dependency: Pick<Dependency, 'variable' | 'url'>): string {
  return `${dependency.variable}=${redactUrl(dependency.url)}`;
}

/**
 * What went wrong, in one line. Node reports a refused connection to a name with several
 * addresses (localhost: ::1 and 127.0.0.1) as an AggregateError without a message of its own.
 */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const nested = (error as { errors?: unknown[] }).errors;
  if (!error.message && Array.isArray(nested) && nested.length > 0) return [...new Set(nested.map(causeOf))].join('; ');
  return (error.message || (error as { code?: string }).code || error.name).split('\n')[0]!.replace(/\.$/, '');
}

/** PostgreSQL error codes no retry fixes: bad credentials, no such database, no permission to connect. */
const permanentPostgresCodes = new Set(['28P01', '28000', '3D000', '42501']);

function postgresDependency(url: string): Dependency {
  return {
    check: 'database',
    what: 'PostgreSQL',
    variable: 'DATABASE_URL',
    url,
    async probe(timeoutMs) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
      } catch (error) {
        if (permanentPostgresCodes.has((error as { code?: string }).code ?? '')) throw new PermanentFailure(causeOf(error));
        throw error;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}

/** Redis replies no retry fixes: the password or the user's permissions. */
const permanentRedisReply = /^(WRONGPASS|NOAUTH|NOPERM)\b/;

function redisDependency(url: string): Dependency {
  return {
    check: 'redis',
    what: 'Redis',
    variable: 'REDIS_URL',
    url,
    async probe(timeoutMs) {
      const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
      // Without retries ioredis rejects with "Connection is closed"; the reason came as an event.
      let reason: unknown;
      client.on('error', (error: unknown) => (reason ??= error));
      try {
        await client.connect();
        await client.ping();
      } catch (error) {
        const cause = causeOf(reason ?? error);
        if (permanentRedisReply.test(cause)) throw new PermanentFailure(cause);
        throw reason ?? error;
      } finally {
        client.disconnect();
      }
    },
  };
}

/** The servers the configuration names (none with SQLite and without Redis). */
export function dependenciesOf(config: Pick<CommonConfig, 'DATABASE_URL' | 'REDIS_URL'>): Dependency[] {
  return [
    ...(config.DATABASE_URL ? [postgresDependency(config.DATABASE_URL)] : []),
    ...(config.REDIS_URL ? [redisDependency(config.REDIS_URL)] : []),
  ];
}

export interface WaitReport {
  readonly dependency: Dependency;
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Set while it does not answer; unset once it does. */
  readonly cause?: string | undefined;
}

export interface WaitOptions {
  /** How long to keep trying, from the first attempt; 0 tries once. */
  readonly timeoutMs: number;
  /** The variable that sets `timeoutMs`, named when the time runs out. */
  readonly timeoutVariable: string;
  /** Stops the wait (the service was asked to stop); the wait then resolves. */
  readonly signal: AbortSignal;
  /** After every attempt but one that fails for good. */
  readonly onAttempt: (report: WaitReport) => void;
}

const firstRetryDelayMs = 250;
const maxRetryDelayMs = 5_000;
/** One attempt may take this long at most (less when the time left is shorter). */
const attemptTimeoutMs = 5_000;

/**
 * Tries every dependency until each answers, retrying with exponential backoff (250 ms doubling
 * to 5 s, with jitter so instances started together spread out) for `timeoutMs`. Rejects with
 * DependencyUnreachable, naming the variable, when one still does not answer then, or answers
 * in a way retrying cannot change.
 */
export async function waitForDependencies(dependencies: readonly Dependency[], options: WaitOptions): Promise<void> {
  const startedAt = Date.now();
  await Promise.all(
    dependencies.map(async (dependency) => {
      for (let attempt = 1; !options.signal.aborted; attempt++) {
        const leftMs = options.timeoutMs - (Date.now() - startedAt);
        try {
          await dependency.probe(Math.max(100, Math.min(attemptTimeoutMs, leftMs)));
          options.onAttempt({ dependency, attempt, elapsedMs: Date.now() - startedAt });
          return;
        } catch (error) {
          const cause = causeOf(error);
          const elapsedMs = Date.now() - startedAt;
          if (error instanceof PermanentFailure) throw new DependencyUnreachable(`${dependency.what} at ${describeSetting(dependency)} refused the connection: ${cause}`);
          options.onAttempt({ dependency, attempt, elapsedMs, cause });
          const delayMs = Math.min(maxRetryDelayMs, firstRetryDelayMs * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
          if (elapsedMs + delayMs > options.timeoutMs) {
            const waited = Math.round(options.timeoutMs / 1000);
            throw new DependencyUnreachable(`${dependency.what} at ${describeSetting(dependency)} did not answer within ${waited} s (${options.timeoutVariable}): ${cause}`);
          }
          await sleep(delayMs, undefined, { signal: options.signal }).catch(() => undefined);
        }
      }
    }),
  );
}
