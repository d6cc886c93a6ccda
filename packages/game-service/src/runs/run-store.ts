import { sql, type Insertable, type Selectable } from 'kysely';
import { executePrepared, type Dialect } from '@playstack/server-kit';
import { andThen, awaited, runFlow, type Awaitable } from '../awaitable.js';
import { PrecompiledQuery, type QueryRunner } from '../precompiled-query.js';
import type { DerivedResult, HintMismatch } from './adapters/adapter-type.js';
import type { RunKey, RunRecord, RunStatus } from './run-record.js';
import type { GameDb, RunsTable } from '../database.js';

type OutcomeRow = Pick<Selectable<RunsTable>, 'id' | 'content_hash' | 'status' | 'rejection_reason' | 'result' | 'response_body'>;

/** What a resubmission needs to answer without judging the evidence again. */
export interface StoredOutcome {
  id: number;
  contentHash: string;
  status: RunStatus;
  rejectionReason: string | null;
  result: DerivedResult | null;
  /** The success body first sent; null for rejected runs and, briefly, while ranks are published. */
  responseBody: string | null;
}

/** A new run, as recorded in the submitting transaction. */
export interface NewRun extends RunKey {
  adapterId: string;
  adapterType: string;
  adapterVersion: number;
  contentHash: string;
  status: RunStatus;
  /** Canonical JSON of the evidence. */
  payload: string;
  result: DerivedResult | null;
  hintMismatches: readonly HintMismatch[];
  rejectionReason: string | null;
  responseStatus: number;
  createdAt: number;
}

/** A `runs` row as inserted (the id is the database's; a run is inserted before any review). */
type RunRow = Required<Omit<Insertable<RunsTable>, 'id' | 'review' | 'reviewed_at'>>;

function runRowOf(run: NewRun, responseBody: string | null): RunRow {
  return {
    game_id: run.gameId,
    player_id: run.playerId,
    run_id: run.runId,
    adapter_id: run.adapterId,
    adapter_type: run.adapterType,
    adapter_version: run.adapterVersion,
    content_hash: run.contentHash,
    status: run.status,
    payload: run.payload,
    result: run.result === null ? null : JSON.stringify(run.result),
    hint_mismatches: run.hintMismatches.length === 0 ? null : JSON.stringify(run.hintMismatches),
    rejection_reason: run.rejectionReason,
    response_status: run.responseStatus,
    response_body: responseBody,
    created_at: run.createdAt,
  };
}

/**
 * The run path's statements, compiled once for the database they are made with (its dialect) and
 * run on it or on any of its transactions.
 */
export class RunStatements {
  readonly #outcome: PrecompiledQuery<RunKey, OutcomeRow>;
  readonly #insert: PrecompiledQuery<RunRow, { id: number }>;
  readonly #storeResponse: PrecompiledQuery<{ id: number; body: string }, unknown>;

  constructor(db: GameDb) {
    this.#outcome = new PrecompiledQuery((arg) =>
      db
        .selectFrom('runs')
        .select(['id', 'content_hash', 'status', 'rejection_reason', 'result', 'response_body'])
        .where('game_id', '=', arg('gameId'))
        .where('player_id', '=', arg('playerId'))
        .where('run_id', '=', arg('runId')),
    );
    this.#insert = new PrecompiledQuery((arg) =>
      db
        .insertInto('runs')
        .values({
          game_id: arg('game_id'),
          player_id: arg('player_id'),
          run_id: arg('run_id'),
          adapter_id: arg('adapter_id'),
          adapter_type: arg('adapter_type'),
          adapter_version: arg('adapter_version'),
          content_hash: arg('content_hash'),
          status: arg('status'),
          payload: arg('payload'),
          result: arg('result'),
          hint_mismatches: arg('hint_mismatches'),
          rejection_reason: arg('rejection_reason'),
          response_status: arg('response_status'),
          response_body: arg('response_body'),
          created_at: arg('created_at'),
        })
        .onConflict((conflict) => conflict.columns(['game_id', 'player_id', 'run_id']).doNothing())
        .returning('id'),
    );
    this.#storeResponse = new PrecompiledQuery((arg) => db.updateTable('runs').set({ response_body: arg('body') }).where('id', '=', arg('id')));
  }

  /** The stored outcome of a run, if the player already submitted this runId. */
  async findOutcome(db: QueryRunner, key: RunKey): Promise<StoredOutcome | undefined> {
    const { rows } = await this.#outcome.execute(db, key);
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      contentHash: row.content_hash,
      status: row.status,
      rejectionReason: row.rejection_reason,
      result: row.result === null ? null : (JSON.parse(row.result) as DerivedResult),
      responseBody: row.response_body,
    };
  }

  /**
   * Records a run unless one with the same key exists. Returns the new row's id, or undefined when
   * a concurrent submission got there first (the unique key decided; nothing was written).
   * `responseBody`: the response already known at insert (a rejection's is not stored).
   */
  insertIfAbsent(db: QueryRunner, run: NewRun, responseBody: string | null = null): Awaitable<number | undefined> {
    return andThen(this.#insert.execute(db, runRowOf(run, responseBody)), ({ rows }) => rows[0]?.id);
  }

  /** Stores the response first sent for an accepted run, so resubmissions repeat it exactly. */
  storeResponse(db: QueryRunner, id: number, body: string): Awaitable<unknown> {
    return this.#storeResponse.execute(db, { id, body });
  }
}

/**
 * Stores the responses first sent for accepted runs, many at once: on PostgreSQL one statement
 * (the ids and bodies as two arrays), on SQLite the single update once per run (in-process
 * statements cost no round trip).
 */
export function responsesStore(statements: RunStatements, dialect: Dialect): (db: GameDb, responses: ReadonlyArray<{ id: number; body: string }>) => Awaitable<unknown> {
  if (dialect !== 'postgres') {
    return (db, responses) =>
      runFlow(
        (function* () {
          for (const { id, body } of responses) yield* awaited(statements.storeResponse(db, id, body));
        })(),
      );
  }
  return async (db, responses) => {
    if (responses.length === 1) return statements.storeResponse(db, responses[0]!.id, responses[0]!.body);
    const ids = responses.map((r) => r.id);
    const bodies = responses.map((r) => r.body);
    await executePrepared(db, sql`update runs set response_body = v.body from unnest(${ids}::bigint[], ${bodies}::text[]) as v(id, body) where runs.id = v.id`);
  };
}

/** Stores a response only where none is stored yet: the first answer stays the answer. */
export async function storeMissingRunResponse(db: GameDb, id: number, body: string): Promise<void> {
  await db.updateTable('runs').set({ response_body: body }).where('id', '=', id).where('response_body', 'is', null).execute();
}

/** Deletes every run of a player in a game; returns how many went. */
export async function eraseRunsOfPlayer(db: GameDb, gameId: string, playerId: string): Promise<number> {
  const result = await db.deleteFrom('runs').where('game_id', '=', gameId).where('player_id', '=', playerId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface RunListFilter {
  gameId: string;
  status?: RunStatus | undefined;
  playerId?: string | undefined;
  adapterId?: string | undefined;
  /** Keyset cursor: only runs with a smaller id (older) than this. */
  beforeId?: number | undefined;
  limit: number;
}

export interface RunPage {
  /** Newest first. */
  runs: RunRecord[];
  /** Pass as `beforeId` for the next page; null on the last page. */
  nextBeforeId: number | null;
}

function toRunRecord(row: Selectable<RunsTable>): RunRecord {
  return {
    id: row.id,
    gameId: row.game_id,
    playerId: row.player_id,
    runId: row.run_id,
    adapterId: row.adapter_id,
    adapterType: row.adapter_type,
    adapterVersion: row.adapter_version,
    status: row.status,
    payload: JSON.parse(row.payload) as unknown,
    result: row.result === null ? null : (JSON.parse(row.result) as DerivedResult),
    hintMismatches: row.hint_mismatches === null ? [] : (JSON.parse(row.hint_mismatches) as HintMismatch[]),
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
    review: row.review,
    reviewedAt: row.reviewed_at === null ? null : Number(row.reviewed_at),
  };
}

/** A page of a game's runs, newest first, for operators; keyset paging on the run's id. */
export async function listRuns(db: GameDb, filter: RunListFilter): Promise<RunPage> {
  let query = db.selectFrom('runs').selectAll().where('game_id', '=', filter.gameId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.playerId !== undefined) query = query.where('player_id', '=', filter.playerId);
  if (filter.adapterId !== undefined) query = query.where('adapter_id', '=', filter.adapterId);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit + 1).execute();
  const page = rows.slice(0, filter.limit).map(toRunRecord);
  return { runs: page, nextBeforeId: rows.length > filter.limit ? page[page.length - 1]!.id : null };
}

/** One run of a game by its internal id, for an operator's detail view. */
export async function findRunById(db: GameDb, gameId: string, id: number): Promise<RunRecord | undefined> {
  const row = await db.selectFrom('runs').selectAll().where('game_id', '=', gameId).where('id', '=', id).executeTakeFirst();
  return row ? toRunRecord(row) : undefined;
}

