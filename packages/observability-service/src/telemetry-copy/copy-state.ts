import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ErrorGroupStatusChange } from '../errors/error-groups.js';

/** How far one kind of row (occurrences, log records) has been copied. */
export interface StreamProgress {
  /** The source position of the last row copied and recorded; null before the first. */
  after: string | null;
  /**
   * Rows (after, through] the copy began writing and has not recorded: some or all of them may
   * be on the target. The next run reads them again and writes only those the target lacks.
   */
  pending: { after: string | null; through: string } | null;
  /** Rows written to the target so far (all runs). */
  copied: number;
  done: boolean;
}

/** How far the error groups' status changes have been carried over. */
export interface StatusProgress {
  /** The source position of the last change handled. */
  after: string | null;
  /** Changes applied on the target. */
  applied: number;
  /** Changes of groups the target did not hold yet when they were due: applied once a copied occurrence makes the group. */
  deferred: ErrorGroupStatusChange[];
  /** The last change applied: a group's next change in the same millisecond follows it. */
  lastApplied: { groupId: string; changedAt: number } | null;
  /** Changes of groups no copied occurrence made (with a time range that leaves the group's occurrences out), left out at the end. */
  leftOut: number;
}

/** Everything a copy has done, recorded after each step is durable on the target: what a later run continues from. */
export interface CopyState {
  version: 1;
  /** The stores and range it copies (`describeStore`): another copy's file is refused. */
  source: string;
  target: string;
  fromMs: number;
  toMs: number;
  occurrences: StreamProgress;
  logs: StreamProgress;
  statuses: StatusProgress;
  /** The target's rollup tiers caught up and everything copied. */
  complete: boolean;
}

const stateVersion = 1;

/** A new copy's state: nothing copied yet. */
export function newCopyState(identity: Pick<CopyState, 'source' | 'target' | 'fromMs' | 'toMs'>): CopyState {
  const stream = (): StreamProgress => ({ after: null, pending: null, copied: 0, done: false });
  return {
    version: stateVersion,
    ...identity,
    occurrences: stream(),
    logs: stream(),
    statuses: { after: null, applied: 0, deferred: [], lastApplied: null, leftOut: 0 },
    complete: false,
  };
}

/** A state file that cannot be read as one. */
export class CopyStateError extends Error {}

/**
 * The file a copy's progress is kept in: every save replaces it whole and durably (written
 * beside it, flushed to disk, renamed over it, the directory flushed), so a crash at any moment
 * leaves either the previous state or the new one.
 */
export class CopyStateFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** The recorded state, or undefined when there is no file. */
  load(): CopyState | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new CopyStateError(`the state file ${this.path} cannot be read: ${(error as Error).message}`);
    }
    let state: Partial<CopyState>;
    try {
      state = JSON.parse(text) as Partial<CopyState>;
    } catch {
      throw new CopyStateError(`${this.path} is not a telemetry copy state file (not JSON): name another with --state`);
    }
    if (state?.version !== stateVersion || typeof state.source !== 'string' || !state.occurrences || !state.logs || !state.statuses) {
      throw new CopyStateError(`${this.path} is not a telemetry copy state file of this release: name another with --state, or --restart`);
    }
    return state as CopyState;
  }

  save(state: CopyState): void {
    const temporary = `${this.path}.tmp`;
    const file = openSync(temporary, 'w', 0o600);
    try {
      writeSync(file, `${JSON.stringify(state, null, 2)}\n`);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    renameSync(temporary, this.path);
    const directory = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
  }
}
