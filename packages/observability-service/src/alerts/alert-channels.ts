import { randomBytes } from 'node:crypto';
import type { ChannelSealer } from './channel-secrets.js';
import type { ObservabilityDb } from '../database.js';

export const channelKinds = ['webhook', 'slack', 'email'] as const;
export type ChannelKind = (typeof channelKinds)[number];

/** What a channel sends to; sealed as a whole when stored. */
export type ChannelConfig =
  | { kind: 'webhook'; url: string; /** HMAC-SHA-256 key of the `X-Alert-Signature` header. */ secret: string }
  | { kind: 'slack'; url: string }
  | { kind: 'email'; to: string[] };

/** A channel as listed: never its URL's path or secret. */
export interface ChannelSummary {
  id: string;
  name: string;
  kind: ChannelKind;
  /** The host of a URL, or the addresses of an email channel. */
  target: string;
  createdAt: number;
}

function targetHint(config: ChannelConfig): string {
  return config.kind === 'email' ? config.to.join(', ') : new URL(config.url).host;
}

/** A new webhook signing secret: 32 random bytes, shown once when the channel is created. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export async function createChannel(db: ObservabilityDb, sealer: ChannelSealer, channel: { name: string; config: ChannelConfig }, now: number, by: string | null): Promise<ChannelSummary> {
  const id = `chn_${randomBytes(8).toString('hex')}`;
  const target = targetHint(channel.config);
  await db
    .insertInto('alert_channels')
    .values({ id, name: channel.name, kind: channel.config.kind, target_hint: target, sealed_config: sealer.seal(JSON.stringify(channel.config)), created_at: now, created_by: by })
    .execute();
  return { id, name: channel.name, kind: channel.config.kind, target, createdAt: now };
}

export async function listChannels(db: ObservabilityDb): Promise<ChannelSummary[]> {
  const rows = await db.selectFrom('alert_channels').select(['id', 'name', 'kind', 'target_hint', 'created_at']).orderBy('name').orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, name: row.name, kind: row.kind as ChannelKind, target: row.target_hint, createdAt: Number(row.created_at) }));
}

export async function channelConfig(db: ObservabilityDb, sealer: ChannelSealer, id: string): Promise<ChannelConfig | undefined> {
  const row = await db.selectFrom('alert_channels').select('sealed_config').where('id', '=', id).executeTakeFirst();
  return row && (JSON.parse(sealer.open(row.sealed_config)) as ChannelConfig);
}

export async function deleteChannel(db: ObservabilityDb, id: string): Promise<boolean> {
  const result = await db.deleteFrom('alert_channels').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
