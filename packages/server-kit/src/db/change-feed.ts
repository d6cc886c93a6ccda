import { createHash, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { RedisHealth } from '../redis/redis-health.js';
import { deferToCommit, type GatheredStatement } from './before-commit.js';
import { executePrepared } from './prepared-statements.js';

/** What a subscriber does with the changes other instances announce. */
export interface ChangeHandlers {
  /** A change another instance made (committed). */
  onMessage(message: string): void | Promise<void>;
  /**
   * The feed was disconnected: changes made meanwhile were not heard. Called once it listens
   * again; read again whatever may have changed.
   */
  onMissed(): void | Promise<void>;
  /** The feed is disconnected from now until `onMissed` (optional: stop trusting what was heard). */
  onLost?(): void;
}

/** What runs a raw statement: any service's Kysely instance or transaction (the feed knows no tables). */
export type StatementRunner = Pick<Kysely<never>, 'getExecutor'>;

/**
 * Changes announced between the instances of a service (sharing its database): each instance
 * tells the others what it changed, and each hears the others'. On PostgreSQL through
 * LISTEN/NOTIFY, so it needs nothing else and notifications sent inside a transaction are
 * delivered only when it commits; otherwise through Redis pub/sub when there is Redis; else there
 * are no other instances to tell (SQLite is one instance) and nothing is sent.
 */
export interface ChangeFeed {
  readonly kind: 'postgres' | 'redis' | 'none';
  /** Tells the other instances of a change (made and committed already). Never throws. */
  publish(topic: string, message: string): Promise<void>;
  /**
   * PostgreSQL only: tells them when `trx` commits, atomically with the change (nothing is sent
   * if it rolls back, nothing is lost if the process dies after the commit).
   */
  readonly publishOnCommit: ((trx: StatementRunner, topic: string, message: string) => Promise<void>) | undefined;
  /** Hears the other instances' changes on `topic` (resolves once listening). */
  subscribe(topic: string, handlers: ChangeHandlers): Promise<void>;
  close(): Promise<void>;
}

/** One envelope on the channel: who sent it, about what. This instance ignores its own. */
interface Envelope {
  i: string;
  t: string;
  m: string;
}

/** Subscribers by topic, and delivery of envelopes from other instances to them. */
class Subscribers {
  readonly instance = randomUUID();
  readonly #byTopic = new Map<string, ChangeHandlers[]>();
  readonly #log: FastifyBaseLogger;

  constructor(log: FastifyBaseLogger) {
    this.#log = log;
  }

  get size(): number {
    return this.#byTopic.size;
  }

  add(topic: string, handlers: ChangeHandlers): void {
    this.#byTopic.set(topic, [...(this.#byTopic.get(topic) ?? []), handlers]);
  }

  envelope(topic: string, message: string): string {
    return JSON.stringify({ i: this.instance, t: topic, m: message } satisfies Envelope);
  }

  deliver(payload: string | undefined): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload ?? '') as Envelope;
    } catch {
      return;
    }
    if (envelope.i === this.instance) return;
    for (const handlers of this.#byTopic.get(envelope.t) ?? []) this.#run(() => handlers.onMessage(envelope.m));
  }

  lost(): void {
    for (const handlers of [...this.#byTopic.values()].flat()) handlers.onLost?.();
  }

  missed(): void {
    for (const handlers of [...this.#byTopic.values()].flat()) this.#run(() => handlers.onMissed());
  }

  #run(handler: () => void | Promise<void>): void {
    void Promise.resolve()
      .then(handler)
      .catch((error: unknown) => this.#log.error({ err: error }, 'a change another instance announced could not be applied'));
  }
}

const minReconnectDelayMs = 100;
const maxReconnectDelayMs = 2_000;
/** How often the listening connection is asked whether it is alive (a dead one hears nothing). */
const heartbeatIntervalMs = 5_000;
const heartbeatTimeoutMs = 2_000;

/**
 * LISTEN/NOTIFY on a connection of its own (not one of the pool's), on a channel named after the
 * schema so deployments sharing a database stay apart. It reconnects when the connection drops
 * (or stops answering its heartbeat) and then tells subscribers they missed changes.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly kind = 'postgres' as const;
  readonly publishOnCommit: (trx: StatementRunner, topic: string, message: string) => Promise<void>;
  /** The NOTIFY channel (also the listener's application_name, so operators can find it). */
  readonly channel: string;
  readonly #url: string;
  readonly #db: StatementRunner;
  readonly #log: FastifyBaseLogger;
  readonly #subscribers: Subscribers;
  #client: pg.Client | undefined;
  #listening: Promise<void> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #reconnectDelayMs = minReconnectDelayMs;
  #closed = false;

  constructor(options: { url: string; schema: string; db: StatementRunner; log: FastifyBaseLogger }) {
    this.#url = options.url;
    this.#db = options.db;
    this.#log = options.log;
    this.#subscribers = new Subscribers(options.log);
    this.channel = `playstack_changes_${createHash('sha256').update(options.schema).digest('hex').slice(0, 16)}`;
    // In a transaction that gathers statements before its commit (a group commit), its writes'
    // announcements go in one statement.
    const notifyAll: GatheredStatement = (trx, envelopes) => executePrepared(trx, sql`select pg_notify(${this.channel}, e) from unnest(${envelopes}::text[]) as e`);
    this.publishOnCommit = async (trx, topic, message) => {
      const envelope = this.#subscribers.envelope(topic, message);
      if (deferToCommit(trx, this.channel, envelope, notifyAll)) return;
      await sql`select pg_notify(${this.channel}, ${envelope})`.execute(trx);
    };
  }

  async publish(topic: string, message: string): Promise<void> {
    try {
      await this.publishOnCommit(this.#db, topic, message);
    } catch (error) {
      this.#log.warn({ err: error, topic }, 'could not announce a change to the other instances');
    }
  }

  async subscribe(topic: string, handlers: ChangeHandlers): Promise<void> {
    this.#subscribers.add(topic, handlers);
    this.#listening ??= this.#listen();
    await this.#listening;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true, application_name: this.channel });
    client.on('notification', (notification) => {
      if (notification.channel === this.channel) this.#subscribers.deliver(notification.payload);
    });
    client.on('error', () => this.#dropped(client));
    client.on('end', () => this.#dropped(client));
    await client.connect();
    await client.query(`LISTEN "${this.channel}"`);
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#client = client;
    this.#reconnectDelayMs = minReconnectDelayMs;
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => void this.#beat(client), heartbeatIntervalMs);
    this.#heartbeat.unref();
  }

  async #beat(client: pg.Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.query('select 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('the listening connection did not answer')), heartbeatTimeoutMs);
        }),
      ]);
    } catch {
      this.#dropped(client);
      client.end().catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The listening connection is gone: subscribers stop trusting what they heard, and it reconnects. */
  #dropped(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    clearInterval(this.#heartbeat);
    this.#log.warn({ channel: this.channel }, 'change feed: the listening PostgreSQL connection dropped; reconnecting (changes of other instances are read again once it is back)');
    this.#subscribers.lost();
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#listen().then(
        () => {
          if (this.#closed) return;
          this.#log.info({ channel: this.channel }, 'change feed: listening again; catching up with what other instances changed meanwhile');
          this.#subscribers.missed();
        },
        () => {
          this.#reconnectDelayMs = Math.min(this.#reconnectDelayMs * 2, maxReconnectDelayMs);
          this.#scheduleReconnect();
        },
      );
    }, this.#reconnectDelayMs);
    this.#reconnectTimer.unref();
  }
}

/**
 * Redis pub/sub, for a service on SQLite with Redis (its instances share nothing else). Messages
 * sent while the subscriber is disconnected are lost: subscribers are told on reconnection.
 */
export class RedisChangeFeed implements ChangeFeed {
  readonly kind = 'redis' as const;
  readonly publishOnCommit = undefined;
  readonly #health: RedisHealth;
  readonly #log: FastifyBaseLogger;
  readonly #subscribers: Subscribers;
  readonly #channel: string;
  #subscriber: RedisHealth['redis'] | undefined;

  constructor(options: { health: RedisHealth; log: FastifyBaseLogger }) {
    this.#health = options.health;
    this.#log = options.log;
    this.#subscribers = new Subscribers(options.log);
    // ioredis applies its key prefix to keys, not to pub/sub channels: add it by hand so
    // deployments sharing one Redis under different prefixes stay apart.
    this.#channel = `${options.health.redis.options.keyPrefix ?? ''}changes`;
  }

  async publish(topic: string, message: string): Promise<void> {
    await this.#health.orElse(
      'change-feed',
      async () => {
        await this.#health.redis.publish(this.#channel, this.#subscribers.envelope(topic, message));
      },
      () => this.#log.warn({ topic }, 'could not announce a change to the other instances (Redis unreachable)'),
    );
  }

  async subscribe(topic: string, handlers: ChangeHandlers): Promise<void> {
    this.#subscribers.add(topic, handlers);
    if (this.#subscriber) return;
    const subscriber = this.#health.redis.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, payload: string) => this.#subscribers.deliver(payload));
    subscriber.on('close', () => this.#subscribers.lost());
    // Commands are not queued while disconnected: connect before subscribing. Later 'ready's are
    // reconnections (ioredis subscribes again by itself).
    await subscriber.connect();
    subscriber.on('ready', () => this.#subscribers.missed());
    await subscriber.subscribe(this.#channel);
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}

/** One instance (SQLite without Redis): nobody to tell, nothing to hear. */
export class NoChangeFeed implements ChangeFeed {
  readonly kind = 'none' as const;
  readonly publishOnCommit = undefined;

  async publish(): Promise<void> {}

  async subscribe(): Promise<void> {}

  async close(): Promise<void> {}
}
