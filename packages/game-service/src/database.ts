import type { Generated, Kysely, Transaction } from 'kysely';
import type { AccountsTables, ServiceApp } from '@playstack/server-kit';
import type { RunStatus } from './runs/run-record.js';

// The game service's tables, as its migrations leave them (src/migrations/). Timestamps are epoch
// milliseconds in BIGINT columns, read as numbers. Each table is read and written by the one
// feature named beside it; other features call that feature's functions.

/** `manifest_versions` (manifest/): every stored manifest document, numbered from 1. */
export interface ManifestVersionsTable {
  version: number;
  document: string;
  author: string | null;
  created_at: number;
  /** JSON array of lines; null for versions stored before it was kept. */
  changes: string | null;
}

/** `service_settings` (auth/): a name-value table, today holding only the legacy token secret. */
export interface ServiceSettingsTable {
  name: string;
  value: string;
}

/** `players` (players/): a player of one game, linked to one platform identity. */
export interface PlayersTable {
  id: string;
  game_id: string;
  provider: string;
  provider_subject: string;
  display_name: string;
  created_at: number;
  last_seen_at: number;
}

/** `session_families` (auth/): a refresh token chain, rotated one generation at a time. */
export interface SessionFamiliesTable {
  id: string;
  game_id: string;
  player_id: string;
  generation: number;
  rotated_at: number;
  grace_used: number;
  created_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
}

/** `refresh_tokens` (auth/): a family's tokens, by hash. */
export interface RefreshTokensTable {
  token_hash: string;
  family_id: string;
  generation: number;
  issued_at: number;
  expires_at: number;
  successor_sealed: string | null;
}

/** `leaderboard_entries` (leaderboards/): a player's best on one (board, period). */
export interface LeaderboardEntriesTable {
  game_id: string;
  board_id: string;
  period: string;
  player_id: string;
  display_name: string;
  score: number;
  /** The board's tie-break value (0 on boards without a subscore). */
  subscore: Generated<number>;
  /** JSON object of the adapter outputs the board keeps with its entries; null when it keeps none. */
  metadata: string | null;
  achieved_at: number;
  updated_at: number;
  /** 1 while the player is hidden by an operator: kept as it is, left out of every rank. */
  hidden: Generated<number>;
}

/** `leaderboard_hidden_players` (leaderboards/): players an operator hid from every board. */
export interface LeaderboardHiddenPlayersTable {
  game_id: string;
  player_id: string;
  /** 1: shadow mode, the player still sees their own entry and rank. */
  shadow: number;
  hidden_at: number;
  /** When the hiding ends by itself; null: until unhidden. */
  hidden_until: number | null;
}

/** `moderation_audit` (moderation/): every operator action on a player, with its reason. */
export interface ModerationAuditTable {
  id: Generated<number>;
  game_id: string;
  player_id: string;
  /** The operator's email, or `system` for an expiry. */
  actor: string;
  action: string;
  reason: string;
  /** JSON of what the action changed, before and after; null where nothing was. */
  before: string | null;
  after: string | null;
  created_at: number;
}

/** `runs` (runs/): every submitted run, its verdict and the response first sent. */
export interface RunsTable {
  id: Generated<number>;
  game_id: string;
  player_id: string;
  run_id: string;
  adapter_id: string;
  adapter_type: string;
  adapter_version: number;
  content_hash: string;
  status: RunStatus;
  payload: string;
  result: string | null;
  hint_mismatches: string | null;
  rejection_reason: string | null;
  response_status: number;
  response_body: string | null;
  created_at: number;
  /** An operator's review of a flagged run: `kept` or `rejected`; null before any. */
  review: string | null;
  reviewed_at: number | null;
}

/** The game service's database: its own tables and the kit's accounts tables (admin/). */
export interface GameDatabase extends AccountsTables {
  manifest_versions: ManifestVersionsTable;
  service_settings: ServiceSettingsTable;
  players: PlayersTable;
  session_families: SessionFamiliesTable;
  refresh_tokens: RefreshTokensTable;
  leaderboard_entries: LeaderboardEntriesTable;
  leaderboard_hidden_players: LeaderboardHiddenPlayersTable;
  runs: RunsTable;
  moderation_audit: ModerationAuditTable;
}

/** The game service's Kysely instance. */
export type GameDb = Kysely<GameDatabase>;

/** A transaction over the game service's database. */
export type GameTransaction = Transaction<GameDatabase>;

/** The app as this service's plugins and routes see it: `app.database` typed by its tables. */
export type GameApp = ServiceApp<GameDatabase>;
