import type { AccountsService, InvitationSummary, VersionInfo } from '@playstack/server-kit';
import type { CurrentManifest, ManifestVersionSummary } from '../manifest/game-catalog.js';
import type { BoardDefinition, GameDefinition, Period } from '../manifest/manifest-schema.js';
import { countPlayersByGame } from '../players/player-counts.js';
import { displayNamesOf } from '../players/player-service.js';
import type { AdapterType } from '../runs/adapters/adapter-type.js';
import { adapterTypes } from '../runs/adapters/registry.js';
import { runsPerHour } from '../runs/run-activity.js';
import { countRunsByGame } from '../runs/run-counts.js';
import { emptyRunCounts, type RunRecord, type RunStatus } from '../runs/run-record.js';
import { isoTime } from './admin-layout.js';
import type { GameApp } from '../database.js';

const readinessTimeoutMs = 2_000;
const dayMs = 86_400_000;
/** Entries shown per board on a game's page. */
export const topEntriesPerBoard = 10;
export const invitationsShown = 20;
/** Hours of runs the game page charts. */
export const activityHours = 48;

export interface HealthAtGlance {
  ready: boolean;
  failing: Array<{ check: string; reason: string }>;
}

export interface AdminOverview {
  games: number;
  players: number;
  runsToday: number;
  flaggedRuns: number;
  health: HealthAtGlance;
  invitations: AdminInvitation[];
}

/** An invitation as the overview lists it. */
export type AdminInvitation = Pick<InvitationSummary, 'id' | 'email' | 'createdAt' | 'expiresAt' | 'acceptedAt'>;

export interface GameSummary {
  id: string;
  name: string;
  provider: string;
  players: number;
  runs: Record<RunStatus, number>;
  boards: string[];
}

export interface BoardTop {
  id: string;
  name: string;
  order: BoardDefinition['order'];
  operator: BoardDefinition['operator'];
  format: BoardDefinition['format'];
  unit: BoardDefinition['unit'];
  /** The board's tie-break and the outputs it keeps with each entry, when it declares them. */
  subscore: BoardDefinition['subscore'] | null;
  metadata: BoardDefinition['metadata'] | null;
  periods: Period[];
  /** The period shown (a period name), and the key it resolved to. */
  period: Period;
  periodKey: string;
  /** An event period's window (ISO times) and state. */
  event: { startsAt: string; endsAt: string; state: 'upcoming' | 'live' | 'ended' } | null;
  /** `subscore` on a board with one; `metadata` (null when the run kept none) on a board that keeps it. */
  entries: Array<{ rank: number; playerId: string; displayName: string; score: number; achievedAt: string; subscore?: number; metadata?: Record<string, unknown> | null }>;
}

/** One hour of a game's runs on its page's charts: the hour's start (ISO, UTC) and its runs by status. */
export interface ActivityHour {
  startsAt: string;
  accepted: number;
  flagged: number;
  rejected: number;
}

/** A game's runs per hour over the last {@link activityHours} hours, oldest first, every hour listed. */
export interface GameActivity {
  hours: ActivityHour[];
}

export interface RunsView {
  gameId: string;
  filter: { status?: RunStatus | undefined; player?: string | undefined };
  runs: RunRecord[];
  /** Display names of the runs' players, by `gameId:playerId` (erased players have none). */
  playerNames: Record<string, string>;
  nextBefore: number | null;
}

export interface ManifestView {
  current: CurrentManifest;
  versions: ManifestVersionSummary[];
}

export interface AdminHealth {
  ready: boolean;
  checks: Array<{ check: string; ok: boolean; reason: string | null }>;
  database: string;
  redis: string;
  node: string;
  uptimeSeconds: number;
  version: VersionInfo;
}

export interface InvitationCreated {
  id: string;
  email: string;
  expiresAt: number;
  token: string;
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / dayMs) * dayMs;
}

/** What the admin pages show, gathered from the features' own exported functions. */
export class AdminData {
  readonly #app: GameApp;
  readonly #accounts: AccountsService;
  readonly #version: VersionInfo;

  constructor(app: GameApp, accounts: AccountsService, version: VersionInfo) {
    this.#app = app;
    this.#accounts = accounts;
    this.#version = version;
  }

  async healthAtGlance(): Promise<HealthAtGlance> {
    const failing = await this.#app.readiness.failures(readinessTimeoutMs);
    return { ready: failing.length === 0, failing };
  }

  async overview(): Promise<AdminOverview> {
    const db = this.#app.database.db;
    const [players, runs, health, invitations] = await Promise.all([
      countPlayersByGame(db),
      countRunsByGame(db, startOfUtcDay(this.#app.clock.now())),
      this.healthAtGlance(),
      this.#accounts.invitations(invitationsShown),
    ]);
    let runsToday = 0;
    let flaggedRuns = 0;
    for (const counts of runs.values()) {
      runsToday += counts.since;
      flaggedRuns += counts.byStatus.flagged;
    }
    return {
      games: this.#app.games.list().length,
      players: [...players.values()].reduce((sum, n) => sum + n, 0),
      runsToday,
      flaggedRuns,
      health,
      invitations: invitations.map(({ id, email, createdAt, expiresAt, acceptedAt }) => ({ id, email, createdAt, expiresAt, acceptedAt })),
    };
  }

  async games(): Promise<GameSummary[]> {
    const db = this.#app.database.db;
    const [players, runs] = await Promise.all([countPlayersByGame(db), countRunsByGame(db, 0)]);
    return this.#app.games.list().map((game) => ({
      id: game.id,
      name: game.name,
      provider: game.auth.provider,
      players: players.get(game.id) ?? 0,
      runs: runs.get(game.id)?.byStatus ?? emptyRunCounts(),
      boards: game.boards.map((board) => board.id),
    }));
  }

  /** Each board's top entries in the requested period, or in the first period the board keeps. */
  async boardTops(game: GameDefinition, requested: Period | undefined): Promise<BoardTop[]> {
    return Promise.all(
      game.boards.map(async (board) => {
        const period: Period = requested && board.periods.includes(requested) ? requested : board.periods.includes('all') ? 'all' : board.periods[0]!;
        const page = await this.#app.leaderboards.page(game, board.id, { period, limit: topEntriesPerBoard });
        return {
          id: board.id,
          name: board.name,
          order: board.order,
          operator: board.operator,
          format: board.format,
          unit: board.unit,
          subscore: board.subscore ?? null,
          metadata: board.metadata ?? null,
          periods: [...board.periods],
          period,
          periodKey: page.period,
          event: page.event ? { startsAt: isoTime(page.event.startsAt), endsAt: isoTime(page.event.endsAt), state: page.event.state } : null,
          entries: page.entries.map((e) => ({
            rank: e.rank,
            playerId: e.playerId,
            displayName: e.displayName,
            score: e.score,
            achievedAt: isoTime(e.achievedAt),
            ...(board.subscore ? { subscore: e.subscore } : {}),
            ...(board.metadata ? { metadata: e.metadata ?? null } : {}),
          })),
        };
      }),
    );
  }

  async activity(gameId: string): Promise<GameActivity> {
    const hours = await runsPerHour(this.#app.database.db, gameId, this.#app.clock.now(), activityHours);
    return { hours: hours.map(({ startsAt, counts }) => ({ startsAt: isoTime(startsAt), ...counts })) };
  }

  async runs(gameId: string, filter: RunsView['filter'], beforeId: number | undefined, limit: number): Promise<RunsView> {
    const page = await this.#app.runs.list({ gameId, status: filter.status, playerId: filter.player, beforeId, limit });
    const names = await displayNamesOf(this.#app.database.db, page.runs);
    return { gameId, filter, runs: page.runs, playerNames: Object.fromEntries(names), nextBefore: page.nextBeforeId };
  }

  async manifest(): Promise<ManifestView> {
    return { current: this.#app.games.current, versions: await this.#app.games.listVersions() };
  }

  adapters(): Array<{ type: AdapterType; usedBy: Array<{ gameId: string; adapterId: string }> }> {
    const games = this.#app.games.list();
    return [...adapterTypes.values()].map((type) => ({
      type,
      usedBy: games.flatMap((game) =>
        Object.entries(game.adapters)
          .filter(([, binding]) => binding.type === type.id)
          .map(([adapterId]) => ({ gameId: game.id, adapterId })),
      ),
    }));
  }

  async health(): Promise<AdminHealth> {
    const { ready, failing } = await this.healthAtGlance();
    const failed = new Map(failing.map((f) => [f.check, f.reason]));
    return {
      ready,
      checks: this.#app.readiness.names().map((check) => ({ check, ok: !failed.has(check), reason: failed.get(check) ?? null })),
      database: this.#app.database.dialect,
      redis: this.#app.redis ? 'configured' : 'not configured (in-process state)',
      node: process.version,
      uptimeSeconds: Math.round(process.uptime()),
      version: this.#version,
    };
  }
}
