import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface RedisHealthOptions {
  log: FastifyBaseLogger;
  /** The app's metrics registry; `<prefix>_redis_degraded` and `<prefix>_redis_fallbacks_total` go there. */
  registry: Registry;
  metricsPrefix: string;
  /** How often a Redis taken out of use is asked whether it answers again. */
  probeIntervalMs?: number;
}

/** What listeners hear when Redis answers again after an outage. */
export interface RedisRecovery {
  /** True when another server process answers (a restart): whatever it held before may be gone. */
  readonly restarted: boolean;
  readonly downForMs: number;
}

const defaultProbeIntervalMs = 500;

/** Replies that mean Redis cannot serve at the moment, as opposed to a command it refused. */
const unavailableReply = /^(LOADING|BUSY|MASTERDOWN|READONLY|OOM|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|MISCONF)\b/;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether Redis can be used right now, for every feature that keeps shared state there. A
 * failed command (connection lost, command timeout) takes Redis out of use at once, so the
 * calls after it go straight to their fallback (per-instance counters, the database) instead of
 * each waiting for a timeout of its own; Redis is back in use once it answers a probe. Going
 * degraded and recovering are logged once each, and `<prefix>_redis_degraded` is 1 meanwhile.
 *
 * Listeners of `onRecovered` resynchronise what they keep in Redis. `restarted` tells them the
 * server is another process (its `run_id` changed): an empty Redis, or one restored from an older
 * snapshot.
 */
export class RedisHealth {
  readonly redis: Redis;
  readonly #log: FastifyBaseLogger;
  readonly #degraded: Gauge;
  readonly #fallbacks: Counter<'use'>;
  readonly #probeIntervalMs: number;
  readonly #listeners = new Set<(recovery: RedisRecovery) => void | Promise<void>>();
  #down: { since: number; reason: string } | undefined;
  #serverId: string | undefined;
  #probe: NodeJS.Timeout | undefined;
  #recovering: Promise<void> | undefined;
  #closed = false;

  constructor(redis: Redis, options: RedisHealthOptions) {
    this.redis = redis;
    this.#log = options.log;
    this.#probeIntervalMs = options.probeIntervalMs ?? defaultProbeIntervalMs;
    this.#degraded = new Gauge({
      name: `${options.metricsPrefix}_redis_degraded`,
      help: '1 while Redis is out of use and the service runs on its fallbacks (per-instance rate limits, reads from the database), else 0',
      registers: [options.registry],
    });
    this.#fallbacks = new Counter({
      name: `${options.metricsPrefix}_redis_fallbacks_total`,
      help: 'Operations answered without Redis because it failed or was out of use, by use',
      labelNames: ['use'],
      registers: [options.registry],
    });
    redis.on('close', () => this.#markDown('connection closed'));
    redis.on('ready', () => void this.#recover());
  }

  /** Starts watching: reads which server answers (or notes that none does). */
  async start(): Promise<void> {
    try {
      this.#serverId = await this.#readServerId();
    } catch (error) {
      this.#markDown(messageOf(error));
    }
  }

  /** False while Redis is out of use: callers use their fallback without asking it. */
  get usable(): boolean {
    return this.#down === undefined;
  }

  /** The `run_id` of the Redis server process in use; it changes when Redis restarts. */
  get serverId(): string {
    return this.#serverId ?? '';
  }

  /**
   * Runs `shared` on Redis when it is usable; when it is not, or `shared` fails, answers
   * `local()` instead (the failure takes Redis out of use, as `failed` says).
   */
  async orElse<T>(use: string, shared: () => Promise<T>, local: () => T | Promise<T>): Promise<T> {
    if (this.#down) {
      this.#fallbacks.inc({ use });
      return local();
    }
    try {
      return await shared();
    } catch (error) {
      this.failed(use, error);
      return local();
    }
  }

  /**
   * Tells of a Redis call that failed (the caller answers without Redis). A lost connection or a
   * timeout takes Redis out of use until it answers a probe; a command Redis refused (a bug,
   * not an outage) is only logged.
   */
  failed(use: string, error: unknown): void {
    this.#fallbacks.inc({ use });
    const message = messageOf(error);
    if (error instanceof Error && error.name === 'ReplyError' && !unavailableReply.test(message)) {
      this.#log.warn({ err: error, use }, 'Redis refused a command; answered without Redis');
      return;
    }
    this.#markDown(message);
  }

  /** Calls `listener` each time Redis answers again after being out of use. */
  onRecovered(listener: (recovery: RedisRecovery) => void | Promise<void>): void {
    this.#listeners.add(listener);
  }

  /** Why Redis is out of use and what that means, or undefined while it is in use. */
  describe(now = Date.now()): string | undefined {
    if (!this.#down) return undefined;
    const seconds = Math.round((now - this.#down.since) / 1000);
    return `Redis unreachable for ${seconds} s (${this.#down.reason}): rate limits count per instance, shared state is read from the database`;
  }

  /** Asks Redis now (for /readyz); a failure takes it out of use like any other. */
  async check(): Promise<void> {
    if (!this.#down) {
      try {
        await this.redis.ping();
      } catch (error) {
        this.failed('readiness', error);
      }
    }
  }

  /** Stops probing (the app is closing; the connection's close is then not an outage). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#probe);
  }

  #markDown(reason: string): void {
    if (this.#closed || this.#down) return;
    this.#down = { since: Date.now(), reason };
    this.#degraded.set(1);
    this.#log.warn({ reason }, 'Redis unreachable: running degraded (per-instance rate limits, reads from the database) until it answers again');
    // A connection that stays open but does not answer emits no 'ready': probe it.
    this.#probe = setInterval(() => {
      if (this.redis.status === 'ready') void this.#recover();
    }, this.#probeIntervalMs);
    this.#probe.unref();
  }

  /** Puts Redis back in use once it answers (once at a time: 'ready' and the probe may race). */
  #recover(): Promise<void> {
    this.#recovering ??= this.#tryRecover().finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }

  async #tryRecover(): Promise<void> {
    if (this.#closed) return;
    let serverId: string;
    try {
      serverId = await this.#readServerId();
    } catch (error) {
      this.#markDown(messageOf(error));
      return;
    }
    const restarted = this.#serverId !== undefined && serverId !== this.#serverId;
    this.#serverId = serverId;
    const down = this.#down;
    if (!down && !restarted) return;
    this.#down = undefined;
    clearInterval(this.#probe);
    this.#degraded.set(0);
    const downForMs = down ? Date.now() - down.since : 0;
    this.#log.info({ downForMs, restarted }, restarted ? 'Redis answers again (restarted: resynchronising from the database)' : 'Redis answers again: shared state resumes');
    // Listeners resynchronise in the background; requests use Redis again meanwhile.
    for (const listener of this.#listeners) {
      void Promise.resolve()
        .then(() => listener({ restarted, downForMs }))
        .catch((error: unknown) => this.#log.error({ err: error }, 'resynchronising after Redis recovered failed'));
    }
  }

  async #readServerId(): Promise<string> {
    const info = await this.redis.info('server');
    const runId = /^run_id:(\w+)/m.exec(info)?.[1];
    if (!runId) throw new Error('Redis INFO did not name its run_id');
    return runId;
  }
}
