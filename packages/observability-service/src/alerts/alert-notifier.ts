import { tracedFetch, type Clock, type Mailer } from '@playstack/server-kit';
import type { FastifyBaseLogger } from 'fastify';
import { channelConfig, type ChannelConfig } from './alert-channels.js';
import type { AlertTransition } from './alert-evaluator.js';
import { emailOf, notificationOf, signatureHeader, signatureOf, slackBody, type AlertNotification } from './alert-notification.js';
import type { ChannelSealer } from './channel-secrets.js';
import type { ObservabilityDb, ObservabilityTransaction } from '../database.js';

/** Waits before the 2nd, 3rd... attempt; after the last the delivery has failed. */
export const retryDelaysMs = [30_000, 120_000, 600_000, 1_800_000, 7_200_000] as const;
export const maxAttempts = retryDelaysMs.length + 1;
/** A sender holds a delivery this long: another instance retries it after a crash. */
const claimMs = 60_000;
const sendTimeoutMs = 10_000;
const batchSize = 50;

export interface DeliveryRecord {
  id: number;
  eventId: number | null;
  channelId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface AlertNotifierOptions {
  database: { db: ObservabilityDb };
  clock: Clock;
  sealer: ChannelSealer;
  mailer: Mailer;
  logger: FastifyBaseLogger;
}

class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly statusCode: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Notifications as an outbox: a transition to firing or resolved queues one delivery per channel
 * of its rule in the transaction that stores it (silenced ones queue none); `runOnce` sends the
 * due ones, retrying failures with backoff (`retryDelaysMs`) and keeping each delivery's
 * attempts, last HTTP status and error as the delivery log. Any instance may send: a delivery is
 * claimed (compare-and-set) before it is tried.
 */
export class AlertNotifier {
  readonly #options: AlertNotifierOptions;
  #running: Promise<number> | undefined;

  constructor(options: AlertNotifierOptions) {
    this.#options = options;
  }

  #db() {
    return this.#options.database.db;
  }

  /** Queues the deliveries of a transition (in the evaluator's transaction). */
  async enqueue(trx: ObservabilityTransaction, transition: AlertTransition): Promise<void> {
    if (transition.silenced || (transition.to !== 'firing' && transition.to !== 'resolved') || transition.rule.channels.length === 0) return;
    // Rules name channels by id, or (in ALERT_RULES_FILE) by name.
    const named = transition.rule.channels;
    const channels = await trx.selectFrom('alert_channels').select('id').where((eb) => eb.or([eb('id', 'in', named), eb('name', 'in', named)])).execute();
    const notification = notificationOf(transition.rule, transition.to, transition.eventId, transition.minute, transition.evidence);
    for (const channel of channels) await this.#insert(trx, channel.id, transition.eventId, notification);
  }

  /** Queues a test notification to one channel and tries it at once; returns the delivery. */
  async sendTest(channelId: string, notification: AlertNotification): Promise<DeliveryRecord> {
    const id = await this.#insert(this.#db(), channelId, null, notification);
    await this.#attempt(id, this.#options.clock.now());
    return (await this.#deliveries('id', id, 1))[0]!;
  }

  async #insert(db: ObservabilityDb, channelId: string, eventId: number | null, notification: AlertNotification): Promise<number> {
    const now = this.#options.clock.now();
    const row = await db
      .insertInto('alert_deliveries')
      .values({
        event_id: eventId,
        channel_id: channelId,
        payload: JSON.stringify(notification),
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        claimed_until: 0,
        last_status_code: null,
        last_error: null,
        created_at: now,
        finished_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Sends every delivery due now; returns how many were tried. */
  runOnce(): Promise<number> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(): Promise<number> {
    const now = this.#options.clock.now();
    const due = await this.#db()
      .selectFrom('alert_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where('claimed_until', '<=', now)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    let tried = 0;
    for (const { id } of due) if (await this.#attempt(Number(id), now)) tried += 1;
    return tried;
  }

  /** One attempt at one delivery, if this instance can claim it. */
  async #attempt(id: number, now: number): Promise<boolean> {
    const claimed = await this.#db()
      .updateTable('alert_deliveries')
      .set({ claimed_until: now + claimMs })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('claimed_until', '<=', now)
      .returning(['channel_id', 'payload', 'attempts'])
      .executeTakeFirst();
    if (!claimed) return false;
    const attempts = Number(claimed.attempts) + 1;
    try {
      const statusCode = await this.#send(claimed.channel_id, claimed.payload);
      await this.#db()
        .updateTable('alert_deliveries')
        .set({ status: 'delivered', attempts, last_status_code: statusCode, last_error: null, finished_at: this.#options.clock.now(), claimed_until: 0 })
        .where('id', '=', id)
        .execute();
    } catch (error) {
      const failed = error instanceof DeliveryFailed ? error : new DeliveryFailed(error instanceof Error ? error.message : String(error));
      const gaveUp = attempts >= maxAttempts;
      await this.#db()
        .updateTable('alert_deliveries')
        .set({
          status: gaveUp ? 'failed' : 'pending',
          attempts,
          last_status_code: failed.statusCode,
          last_error: failed.message.slice(0, 500),
          next_attempt_at: gaveUp ? now : now + retryDelaysMs[attempts - 1]!,
          finished_at: gaveUp ? this.#options.clock.now() : null,
          claimed_until: 0,
        })
        .where('id', '=', id)
        .execute();
      this.#options.logger.warn({ deliveryId: id, attempts, err: failed.message }, gaveUp ? 'alert notification failed; giving up' : 'alert notification failed; retrying later');
    }
    return true;
  }

  /** Sends one payload to a channel; the HTTP status (null for email) or a DeliveryFailed. */
  async #send(channelId: string, payload: string): Promise<number | null> {
    const config = await channelConfig(this.#db(), this.#options.sealer, channelId);
    if (!config) throw new DeliveryFailed('the channel was deleted');
    const notification = JSON.parse(payload) as AlertNotification;
    if (config.kind === 'email') {
      const { subject, text } = emailOf(notification);
      await this.#options.mailer.send({ to: config.to.join(', '), subject, text });
      return null;
    }
    return this.#post(config, config.kind === 'webhook' ? payload : JSON.stringify(slackBody(notification)));
  }

  async #post(config: Exclude<ChannelConfig, { kind: 'email' }>, body: string): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'playstack-observability-alerts/1' };
    if (config.kind === 'webhook') headers[signatureHeader] = signatureOf(config.secret, body, this.#options.clock.now());
    let response: Response;
    try {
      response = await tracedFetch(config.url, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(sendTimeoutMs) });
    } catch (error) {
      throw new DeliveryFailed(`request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    await response.body?.cancel();
    if (!response.ok) throw new DeliveryFailed(`HTTP ${response.status}`, response.status);
    return response.status;
  }

  /** The delivery log of a channel, newest first. */
  channelDeliveries(channelId: string, limit: number): Promise<DeliveryRecord[]> {
    return this.#deliveries('channel_id', channelId, limit);
  }

  /** The deliveries of an event. */
  eventDeliveries(eventId: number): Promise<DeliveryRecord[]> {
    return this.#deliveries('event_id', eventId, 100);
  }

  async #deliveries(column: 'id' | 'channel_id' | 'event_id', value: string | number, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.#db().selectFrom('alert_deliveries').selectAll().where(column, '=', value as never).orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      id: Number(row.id),
      eventId: row.event_id === null ? null : Number(row.event_id),
      channelId: row.channel_id,
      status: row.status as DeliveryRecord['status'],
      attempts: Number(row.attempts),
      nextAttemptAt: Number(row.next_attempt_at),
      lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
      lastError: row.last_error,
      createdAt: Number(row.created_at),
      finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    }));
  }
}
