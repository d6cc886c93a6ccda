import { sql, type ExpressionBuilder } from 'kysely';
import type { Dialect } from '@playstack/server-kit';
import { andThen, type Awaitable } from '../awaitable.js';
import type { ManifestPart } from '../manifest/manifest-changes.js';
import { PrecompiledByCount, PrecompiledQuery, type QueryRunner } from '../precompiled-query.js';
import type { RankedSet, SortOrder } from './ranked-board.js';

/** The orders a set ranks by (rank-order.ts's `RankOrder`, which imports this module's types). */
type RankOrder = Pick<RankedSet, 'order' | 'subscoreOrder'>;
import type { GameDatabase, GameDb, LeaderboardEntriesTable } from '../database.js';

/** The adapter outputs a board keeps with an entry, by name (a board's `metadata`). */
export type EntryMetadata = Readonly<Record<string, number>>;

/** A player's entry on one (board, period). */
export interface Entry {
  readonly playerId: string;
  readonly displayName: string;
  readonly score: number;
  /** The board's tie-break value; 0 on a board without a subscore. */
  readonly subscore: number;
  readonly achievedAt: number;
  /** What the board keeps of the run that made the entry; undefined when it keeps nothing. */
  readonly metadata?: EntryMetadata | undefined;
}

/** Where an entry sits, as a keyset position: the score and subscore as stored (not negated). */
export interface EntryPosition {
  readonly score: number;
  readonly subscore: number;
  readonly achievedAt: number;
  readonly playerId: string;
}

type Eb = ExpressionBuilder<GameDatabase, 'leaderboard_entries'>;

const entryColumns = ['player_id', 'display_name', 'score', 'subscore', 'achieved_at', 'metadata'] as const;

type EntryRow = Pick<LeaderboardEntriesTable, Exclude<(typeof entryColumns)[number], 'subscore'>> & { subscore: number };

function toEntry(row: EntryRow): Entry {
  const entry = { playerId: row.player_id, displayName: row.display_name, score: Number(row.score), subscore: Number(row.subscore), achievedAt: Number(row.achieved_at) };
  return row.metadata === null ? entry : { ...entry, metadata: JSON.parse(row.metadata) as EntryMetadata };
}

/** An entry as its row holds it: the metadata as JSON, or null without any. */
type StoredEntry = Omit<Entry, 'metadata'> & { readonly metadataJson: string | null };

function toStored(entry: Entry): StoredEntry {
  return {
    playerId: entry.playerId,
    displayName: entry.displayName,
    score: entry.score,
    subscore: entry.subscore,
    achievedAt: entry.achievedAt,
    metadataJson: entry.metadata === undefined ? null : JSON.stringify(entry.metadata),
  };
}

function inSet(eb: Eb, set: Pick<RankedSet, 'gameId' | 'boardId' | 'period'>) {
  return eb.and([eb('game_id', '=', set.gameId), eb('board_id', '=', set.boardId), eb('period', '=', set.period)]);
}

/** The entries that rank: a hidden player's are left out of every read that ranks or pages. */
function visibleInSet(eb: Eb, set: RankedSet) {
  return eb.and([inSet(eb, set), eb('hidden', '=', 0)]);
}

/** The comparison that picks values ranked after (`forward`) or before (`backward`) one, in a column sorted in `order`. */
function aheadOf(order: SortOrder, direction: 'forward' | 'backward'): '<' | '>' {
  return (order === 'desc') === (direction === 'forward') ? '<' : '>';
}

/**
 * Entries strictly after (`forward`) or strictly before (`backward`) a position in rank order:
 * score, subscore (in its own order; 0 on every entry of a board without one), time, player.
 * The redundant bound on `score` lets both databases seek the index instead of scanning it.
 */
function beyond(eb: Eb, set: RankOrder, at: EntryPosition, direction: 'forward' | 'backward') {
  const scoreAhead = aheadOf(set.order, direction);
  const subscoreAhead = aheadOf(set.subscoreOrder ?? 'asc', direction);
  const later = direction === 'forward' ? '>' : '<';
  return eb.and([
    eb('score', `${scoreAhead}=`, at.score),
    eb.or([
      eb('score', scoreAhead, at.score),
      eb('subscore', subscoreAhead, at.subscore),
      eb.and([
        eb('subscore', '=', at.subscore),
        eb.or([eb('achieved_at', later, at.achievedAt), eb.and([eb('achieved_at', '=', at.achievedAt), eb('player_id', later, at.playerId)])]),
      ]),
    ]),
  ]);
}

function ordered<Q extends { orderBy: (...args: any[]) => Q }>(query: Q, set: RankOrder, direction: 'forward' | 'backward'): Q {
  const flip = (d: 'asc' | 'desc') => (direction === 'forward' ? d : d === 'asc' ? 'desc' : 'asc');
  return query
    .orderBy('score', flip(set.order))
    .orderBy('subscore', flip(set.subscoreOrder ?? 'asc'))
    .orderBy('achieved_at', flip('asc'))
    .orderBy('player_id', flip('asc'));
}

type PlayerEntry = Entry & { boardId: string; period: string };

function toPlayerEntry(row: EntryRow & Pick<LeaderboardEntriesTable, 'board_id' | 'period'>): PlayerEntry {
  return { ...toEntry(row), boardId: row.board_id, period: row.period };
}

/** A player's entry as a write reads it: whether it is hidden too (a hidden entry does not rank). */
export type WrittenEntry = PlayerEntry & { hidden: boolean };

function toWrittenEntry(row: EntryRow & Pick<LeaderboardEntriesTable, 'board_id' | 'period'> & { hidden: number }): WrittenEntry {
  return { ...toPlayerEntry(row), hidden: Number(row.hidden) !== 0 };
}

function entriesOfPlayerQuery(
  db: GameDb,
  gameId: string,
  playerId: string,
  sets: ReadonlyArray<{ boardId: string; period: string }>,
  lock: Dialect | undefined,
  visibleOnly = false,
) {
  let query = db
    .selectFrom('leaderboard_entries')
    .select([...entryColumns, 'board_id', 'period', 'hidden'])
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .where((eb) => eb.or(sets.map((s) => eb.and([eb('board_id', '=', s.boardId), eb('period', '=', s.period)]))));
  if (visibleOnly) query = query.where('hidden', '=', 0);
  return lock === 'postgres' ? query.orderBy('board_id').orderBy('period').forUpdate() : query;
}

/**
 * A player's entries in a game, limited to the given (board, period) pairs; on PostgreSQL the
 * rows are also locked until the transaction ends (SQLite transactions hold its one write lock).
 * Hidden entries are included (writes combine with them) unless `visibleOnly` (what ranks).
 */
export async function entriesOfPlayer(
  db: GameDb,
  gameId: string,
  playerId: string,
  sets: ReadonlyArray<{ boardId: string; period: string }>,
  options: { lock?: Dialect | undefined; visibleOnly?: boolean } = {},
): Promise<PlayerEntry[]> {
  if (sets.length === 0) return [];
  const rows = await entriesOfPlayerQuery(db, gameId, playerId, sets, options.lock, options.visibleOnly).execute();
  return rows.map(toPlayerEntry);
}

/** The columns a write of an entry sets (besides its set and player). */
function entryValues(entry: StoredEntry, nowMs: number) {
  return {
    display_name: entry.displayName,
    score: entry.score,
    subscore: entry.subscore,
    metadata: entry.metadataJson,
    achieved_at: entry.achievedAt,
    updated_at: nowMs,
  };
}

interface EntryToInsert {
  boardId: string;
  period: string;
  entry: Entry;
}

function insertEntriesQuery(db: GameDb, gameId: string, entries: ReadonlyArray<{ boardId: string; period: string; entry: StoredEntry }>, nowMs: number) {
  return db
    .insertInto('leaderboard_entries')
    .values(
      entries.map(({ boardId, period, entry }) => ({
        game_id: gameId,
        board_id: boardId,
        period,
        player_id: entry.playerId,
        ...entryValues(entry, nowMs),
        // A hidden player's new entries are hidden too, read in the same statement (a hiding
        // cannot commit meanwhile: LeaderboardModeration.exclusive).
        hidden: sql<number>`(select count(*) from leaderboard_hidden_players where game_id = ${gameId} and player_id = ${entry.playerId})`,
      })),
    )
    .onConflict((oc) => oc.columns(['game_id', 'board_id', 'period', 'player_id']).doNothing())
    .returning(['board_id', 'period', 'hidden']);
}

/**
 * Inserts first entries of one player in several sets with one statement; returns the sets
 * (`boardId`/`period`) actually inserted, leaving out those a concurrent transaction created first.
 */
export async function insertEntriesIfAbsent(
  db: GameDb,
  gameId: string,
  entries: ReadonlyArray<EntryToInsert>,
  nowMs: number,
): Promise<Array<{ boardId: string; period: string }>> {
  if (entries.length === 0) return [];
  const inserted = await insertEntriesQuery(db, gameId, entries.map((e) => ({ ...e, entry: toStored(e.entry) })), nowMs).execute();
  return inserted.map((row) => ({ boardId: row.board_id, period: row.period }));
}

function updateEntryQuery(db: GameDb, set: Pick<RankedSet, 'gameId' | 'boardId' | 'period'>, entry: StoredEntry, nowMs: number) {
  return db
    .updateTable('leaderboard_entries')
    .set(entryValues(entry, nowMs))
    .where((eb) => inSet(eb, set))
    .where('player_id', '=', entry.playerId);
}

/** Sets an entry's score, time and name (an operator's recomputation; runs use `EntryStatements`). */
export async function updateEntry(db: GameDb, set: RankedSet, entry: Entry, nowMs: number): Promise<void> {
  await updateEntryQuery(db, set, toStored(entry), nowMs).execute();
}

/** Arguments of a statement over `count` (board, period) pairs: `boardId0`, `period0`, ... */
type PairArgs = Record<`boardId${number}` | `period${number}`, string>;
type EntryArgs = PairArgs &
  Record<`playerId${number}` | `displayName${number}`, string> &
  Record<`score${number}` | `subscore${number}` | `achievedAt${number}`, number> &
  Record<`metadataJson${number}`, string | null>;

function pairArgs(pairs: ReadonlyArray<{ boardId: string; period: string }>): PairArgs {
  const args: PairArgs = {};
  pairs.forEach(({ boardId, period }, i) => {
    args[`boardId${i}`] = boardId;
    args[`period${i}`] = period;
  });
  return args;
}

function indices(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

/**
 * The statements a run's score writes make, compiled once per database and per number of
 * (board, period) pairs they cover. `lock`: the dialect whose reads of a player's entries lock
 * them (PostgreSQL's, inside the run's transaction); none for the reads after the commit.
 */
export class EntryStatements {
  readonly #ofPlayer: PrecompiledByCount<PairArgs & { gameId: string; playerId: string }, Parameters<typeof toWrittenEntry>[0]>;
  readonly #insert: PrecompiledByCount<EntryArgs & { gameId: string; nowMs: number }, { board_id: string; period: string; hidden: number }>;
  readonly #update: PrecompiledQuery<StoredEntry & { gameId: string; boardId: string; period: string; nowMs: number }, unknown>;

  /** `visibleOnly`: `entriesOfPlayer` leaves hidden entries out (what the rank engine holds). */
  constructor(db: GameDb, lock: Dialect | undefined, visibleOnly = false) {
    this.#ofPlayer = new PrecompiledByCount((count, arg) =>
      entriesOfPlayerQuery(db, arg('gameId'), arg('playerId'), indices(count).map((i) => ({ boardId: arg(`boardId${i}`), period: arg(`period${i}`) })), lock, visibleOnly),
    );
    this.#insert = new PrecompiledByCount((count, arg) =>
      insertEntriesQuery(
        db,
        arg('gameId'),
        indices(count).map((i) => ({
          boardId: arg(`boardId${i}`),
          period: arg(`period${i}`),
          entry: {
            playerId: arg(`playerId${i}`),
            displayName: arg(`displayName${i}`),
            score: arg(`score${i}`),
            subscore: arg(`subscore${i}`),
            achievedAt: arg(`achievedAt${i}`),
            metadataJson: arg(`metadataJson${i}`),
          },
        })),
        arg('nowMs'),
      ),
    );
    this.#update = new PrecompiledQuery((arg) =>
      updateEntryQuery(
        db,
        { gameId: arg('gameId'), boardId: arg('boardId'), period: arg('period') },
        {
          playerId: arg('playerId'),
          displayName: arg('displayName'),
          score: arg('score'),
          subscore: arg('subscore'),
          achievedAt: arg('achievedAt'),
          metadataJson: arg('metadataJson'),
        },
        arg('nowMs'),
      ),
    );
  }

  /**
   * A player's entries in a game, limited to the given (board, period) pairs; with the `lock`
   * PostgreSQL, the rows are also locked until the transaction ends (SQLite transactions hold its
   * one write lock).
   */
  entriesOfPlayer(db: QueryRunner, gameId: string, playerId: string, sets: ReadonlyArray<{ boardId: string; period: string }>): Awaitable<WrittenEntry[]> {
    if (sets.length === 0) return [];
    return andThen(this.#ofPlayer.execute(db, sets.length, { ...pairArgs(sets), gameId, playerId }), ({ rows }) => rows.map(toWrittenEntry));
  }

  /** `insertEntriesIfAbsent`, precompiled; also whether each inserted entry is hidden (its player is). */
  insertEntriesIfAbsent(db: QueryRunner, gameId: string, entries: ReadonlyArray<EntryToInsert>, nowMs: number): Awaitable<Array<{ boardId: string; period: string; hidden: boolean }>> {
    if (entries.length === 0) return [];
    const args: EntryArgs & { gameId: string; nowMs: number } = { ...pairArgs(entries), gameId, nowMs };
    entries.forEach(({ entry }, i) => {
      const stored = toStored(entry);
      args[`playerId${i}`] = stored.playerId;
      args[`displayName${i}`] = stored.displayName;
      args[`score${i}`] = stored.score;
      args[`subscore${i}`] = stored.subscore;
      args[`achievedAt${i}`] = stored.achievedAt;
      args[`metadataJson${i}`] = stored.metadataJson;
    });
    return andThen(this.#insert.execute(db, entries.length, args), ({ rows }) => rows.map((row) => ({ boardId: row.board_id, period: row.period, hidden: Number(row.hidden) !== 0 })));
  }

  /** Writes a player's entry in one set (after the board's operator combined it with the old one). */
  updateEntry(db: QueryRunner, set: RankedSet, entry: Entry, nowMs: number): Awaitable<unknown> {
    return this.#update.execute(db, { ...toStored(entry), gameId: set.gameId, boardId: set.boardId, period: set.period, nowMs });
  }
}

/** One visible entry, or undefined. */
export async function findEntry(db: GameDb, set: RankedSet, playerId: string): Promise<Entry | undefined> {
  const row = await db
    .selectFrom('leaderboard_entries')
    .select(entryColumns)
    .where((eb) => visibleInSet(eb, set))
    .where('player_id', '=', playerId)
    .executeTakeFirst();
  return row && toEntry(row);
}

/** Visible entries of the given players (any order). */
export async function entriesOfPlayers(db: GameDb, set: RankedSet, playerIds: readonly string[]): Promise<Entry[]> {
  if (playerIds.length === 0) return [];
  const rows = await db
    .selectFrom('leaderboard_entries')
    .select(entryColumns)
    .where((eb) => visibleInSet(eb, set))
    .where('player_id', 'in', playerIds)
    .execute();
  return rows.map(toEntry);
}

/** The metadata of those of the given players whose entry in the set has some, hidden or not (each entry's own). */
export async function metadataOfPlayers(db: GameDb, set: RankedSet, playerIds: readonly string[]): Promise<Map<string, EntryMetadata>> {
  const found = new Map<string, EntryMetadata>();
  if (playerIds.length === 0) return found;
  const rows = await db
    .selectFrom('leaderboard_entries')
    .select(['player_id', 'metadata'])
    .where((eb) => inSet(eb, set))
    .where('player_id', 'in', playerIds)
    .where('metadata', 'is not', null)
    .execute();
  for (const row of rows) found.set(row.player_id, JSON.parse(row.metadata!) as EntryMetadata);
  return found;
}

/** Up to `limit` entries in rank order after `after` (from the top when undefined). */
export async function entriesAfter(db: GameDb, set: RankedSet, after: EntryPosition | undefined, limit: number): Promise<Entry[]> {
  let query = db.selectFrom('leaderboard_entries').select(entryColumns).where((eb) => visibleInSet(eb, set));
  if (after) query = query.where((eb) => beyond(eb, set, after, 'forward'));
  const rows = await ordered(query, set, 'forward').limit(limit).execute();
  return rows.map(toEntry);
}

/** Up to `limit` entries immediately before `before`, returned in rank order. */
export async function entriesBefore(db: GameDb, set: RankedSet, before: EntryPosition, limit: number): Promise<Entry[]> {
  const query = db
    .selectFrom('leaderboard_entries')
    .select(entryColumns)
    .where((eb) => visibleInSet(eb, set))
    .where((eb) => beyond(eb, set, before, 'backward'));
  const rows = await ordered(query, set, 'backward').limit(limit).execute();
  return rows.map(toEntry).reverse();
}

/** How many entries rank before a position. */
export async function countBefore(db: GameDb, set: RankedSet, position: EntryPosition): Promise<number> {
  const row = await db
    .selectFrom('leaderboard_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => visibleInSet(eb, set))
    .where((eb) => beyond(eb, set, position, 'backward'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many visible entries a (board, period) has; with `includeHidden`, every entry (an event window's entrants). */
export async function countEntries(db: GameDb, set: RankedSet, options: { includeHidden?: boolean } = {}): Promise<number> {
  const row = await db
    .selectFrom('leaderboard_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => (options.includeHidden ? inSet(eb, set) : visibleInSet(eb, set)))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Advisory lock class of a game's event entrances (the other key is the game id's hash). */
const eventEntranceLockClass = 27_001;

/**
 * Makes newcomers to a game's capped event windows enter one at a time until the transaction
 * ends (PostgreSQL; SQLite transactions hold its one write lock), so a count of entrants stays
 * true until the entry is inserted. One lock per game, not per window: a transaction taking
 * several would take them in whatever order its batched runs come, and could deadlock.
 */
export async function lockEventEntrance(db: GameDb, dialect: Dialect, gameId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${sql.lit(eventEntranceLockClass)}, hashtext(${gameId}))`.execute(db);
}

/** Entries of a game or board the manifest would drop, every period (0 for adapters: entries belong to boards). */
export async function countEntriesOfPart(db: GameDb, part: ManifestPart): Promise<number> {
  if (part.kind === 'adapter') return 0;
  let query = db.selectFrom('leaderboard_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('game_id', '=', part.gameId);
  if (part.kind === 'board') query = query.where('board_id', '=', part.boardId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Removes every entry of a player in a game (every board, every period); returns how many. */
export async function deletePlayerEntries(db: GameDb, dialect: Dialect, gameId: string, playerId: string): Promise<number> {
  await lockPlayerEntries(db, dialect, gameId, playerId);
  const result = await db
    .deleteFrom('leaderboard_entries')
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A player's entries (hidden or not) on every board and period of a game, for operators. */
export async function allEntriesOfPlayer(db: GameDb, gameId: string, playerId: string): Promise<Array<Entry & { boardId: string; period: string; hidden: boolean }>> {
  const rows = await db
    .selectFrom('leaderboard_entries')
    .select([...entryColumns, 'board_id', 'period', 'hidden'])
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .orderBy('board_id')
    .orderBy('period', 'desc')
    .execute();
  return rows.map((row) => ({ ...toEntry(row), boardId: row.board_id, period: row.period, hidden: Number(row.hidden) === 1 }));
}

/** The player's entry in a set, hidden or not (a shadow-hidden player's own view). */
export async function findEntryIncludingHidden(db: GameDb, set: RankedSet, playerId: string): Promise<Entry | undefined> {
  const row = await db
    .selectFrom('leaderboard_entries')
    .select(entryColumns)
    .where((eb) => inSet(eb, set))
    .where('player_id', '=', playerId)
    .executeTakeFirst();
  return row && toEntry(row);
}

/** Hides or shows every entry of a player in a game, every board and period; how many rows. */
export async function setPlayerEntriesHidden(db: GameDb, dialect: Dialect, gameId: string, playerId: string, hidden: boolean): Promise<number> {
  await lockPlayerEntries(db, dialect, gameId, playerId);
  const result = await db
    .updateTable('leaderboard_entries')
    .set({ hidden: hidden ? 1 : 0 })
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Blocks score writes until the transaction ends (PostgreSQL; see `LeaderboardModeration.exclusive`).
 * Every lock the transaction waits for from here on gives up after `lockTimeoutMs` (error 55P03):
 * well before PostgreSQL looks for deadlocks (1 s), so a moderation transaction is never one a
 * deadlock aborts in a run's stead; the caller retries it.
 */
export async function lockEntriesForModeration(db: GameDb, dialect: Dialect, lockTimeoutMs: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`set local lock_timeout = ${sql.lit(`${Math.round(lockTimeoutMs)}ms`)}`.execute(db);
  await sql`lock table leaderboard_entries in exclusive mode`.execute(db);
}

/** True for PostgreSQL's lock_not_available (a lock wait past `lock_timeout`). */
export function isLockTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '55P03';
}

/** Removes one entry; true when there was one. */
export async function deleteEntry(db: GameDb, set: RankedSet, playerId: string): Promise<boolean> {
  const result = await db.deleteFrom('leaderboard_entries').where((eb) => inSet(eb, set)).where('player_id', '=', playerId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Locks a player's entries in the order score writes lock (board, period) first, so an operator's
 * change racing a run of the same player waits for it instead of deadlocking with it. SQLite
 * transactions already hold its one write lock.
 */
async function lockPlayerEntries(db: GameDb, dialect: Dialect, gameId: string, playerId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db
    .selectFrom('leaderboard_entries')
    .select('period')
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .orderBy('board_id')
    .orderBy('period')
    .forUpdate()
    .execute();
}
