import { ApiError } from '@playstack/server-kit';
import { describeStore, openTelemetryStore, reasonOf, sameStore, TelemetryStoreUnavailable, type StandaloneTelemetryStore, type TelemetryStore } from '../telemetry/index.js';
import { CopyStateError, CopyStateFile, newCopyState, type CopyState } from './copy-state.js';
import { TelemetryCopier, type CopiedKind, type CopyEvent, type TelemetryCopyOptions } from './telemetry-copier.js';
import { allTime, parseTelemetryCopyArguments, telemetryCopyUsage, UsageError, type TelemetryCopyArguments } from './telemetry-copy-arguments.js';

/** How often a progress line is printed at most while a kind of row is copied, in ms. */
const progressIntervalMs = 1_000;

export const exitCodes = { copied: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Where the command writes and what it is told. */
export interface TelemetryCopyIo {
  /** One line of progress or outcome (without its newline). */
  say(line: string): void;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** True once the user asked the copy to stop (Ctrl-C): it stops after the batch in hand. */
  stopped: () => boolean;
  /** Tests: see TelemetryCopyOptions.afterWrite. */
  afterWrite?: TelemetryCopyOptions['afterWrite'];
}

/** A copy refused before anything was written: the message says why and what to do. */
class RefusedError extends Error {}

const kindNames: Record<CopiedKind, string> = { occurrences: 'occurrences', logs: 'log records' };
const count = (value: number) => value.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The time range as --from-time and --to-time gave it. */
function rangeText(state: Pick<CopyState, 'fromMs' | 'toMs'>): string {
  const from = state.fromMs === allTime.fromMs ? undefined : new Date(state.fromMs).toISOString();
  const to = state.toMs === allTime.toMs ? undefined : new Date(state.toMs).toISOString();
  if (from === undefined) return to === undefined ? 'all times' : `before ${to}`;
  return to === undefined ? `from ${from} on` : `from ${from} to ${to}`;
}

/** Progress lines: each kind's count and rate at most once a second (the first batch's at once), and its total when done. */
function progressReporter(say: (line: string) => void): (event: CopyEvent) => void {
  const startedAt = performance.now();
  const kinds: Partial<Record<CopiedKind, { startedAt: number; copiedBefore: number }>> = {};
  let lastLineAt = -Infinity;
  return (event) => {
    const now = performance.now();
    if (event.type === 'tiers-folded') {
      if (event.minutes > 0) say(`rollup tiers: ${count(event.minutes)} minutes folded in (${seconds(event.durationMs)})`);
      return;
    }
    if (event.type === 'kind-started') {
      kinds[event.kind] = { startedAt: now, copiedBefore: event.copied };
      return;
    }
    const kind = kinds[event.kind]!;
    const copiedNow = event.copied - kind.copiedBefore;
    if (event.type === 'kind-done') {
      say(`${kindNames[event.kind]}: ${count(event.copied)} copied (${count(copiedNow)} in this run, ${seconds(now - kind.startedAt)})`);
      return;
    }
    if (now - lastLineAt < progressIntervalMs) return;
    lastLineAt = now;
    const rate = copiedNow / Math.max((now - kind.startedAt) / 1000, 0.001);
    say(`${kindNames[event.kind]}: ${count(event.copied)} copied, ${count(Math.round(rate))}/s (${seconds(now - startedAt)})`);
  };
}

/** Whether the store holds any occurrence or log record in the range (which kind, if so). */
async function heldKind(store: TelemetryStore, fromMs: number, toMs: number): Promise<string | undefined> {
  const request = { fromMs, toMs, batchRows: 1 };
  for await (const batch of store.exportOccurrences(request)) if (batch.length > 0) return 'occurrences';
  for await (const batch of store.logs.exportRecords(request)) if (batch.length > 0) return 'log records';
  return undefined;
}

/** The recorded state of this copy, if any (another copy's is refused). */
function recordedState(args: TelemetryCopyArguments, file: CopyStateFile): CopyState | undefined {
  const recorded = args.restart ? undefined : file.load();
  if (!recorded) return undefined;
  const identity = identityOf(args);
  if (recorded.source !== identity.source || recorded.target !== identity.target || recorded.fromMs !== identity.fromMs || recorded.toMs !== identity.toMs) {
    throw new RefusedError(
      `${file.path} records another copy (from ${recorded.source} to ${recorded.target}, ${rangeText(recorded)}): name another state file with --state, or --restart to start this copy over`,
    );
  }
  return recorded;
}

function identityOf(args: TelemetryCopyArguments): Pick<CopyState, 'source' | 'target' | 'fromMs' | 'toMs'> {
  return { source: describeStore(args.from), target: describeStore(args.to), fromMs: args.fromMs, toMs: args.toMs };
}

/** A new copy's state, saved: refused onto a target that holds telemetry in the range, unless --append. */
async function newState(args: TelemetryCopyArguments, file: CopyStateFile, target: StandaloneTelemetryStore): Promise<CopyState> {
  const identity = identityOf(args);
  if (!args.append) {
    const held = await heldKind(target.store, args.fromMs, args.toMs);
    if (held !== undefined) {
      throw new RefusedError(
        `the target ${identity.target} already holds ${held} in the range (${rangeText(identity)}) and ${file.path} records no copy into it: --append copies into it anyway (the same rows would be there twice), or empty it first`,
      );
    }
  }
  const state = newCopyState(identity);
  file.save(state);
  return state;
}

/**
 * `npm run telemetry:copy`: copies telemetry between stores (telemetry-copier.ts), saying what it
 * does in lines to `io.say`. Returns the exit status; nothing it does ends in a stack trace.
 */
export async function runTelemetryCopyCommand(argv: readonly string[], io: TelemetryCopyIo): Promise<number> {
  let parsed: ReturnType<typeof parseTelemetryCopyArguments>;
  try {
    parsed = parseTelemetryCopyArguments(argv, io.cwd);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.say(`telemetry copy: ${error.message} (--help says how)`);
    return exitCodes.usage;
  }
  if (parsed.help) {
    io.say(telemetryCopyUsage);
    return exitCodes.copied;
  }
  const args = parsed;
  if (sameStore(args.from, args.to)) {
    io.say(`telemetry copy: --from and --to are the same store (${describeStore(args.from)}): refusing to copy a store onto itself`);
    return exitCodes.usage;
  }
  const file = new CopyStateFile(args.stateFile);
  const opened: StandaloneTelemetryStore[] = [];
  const startedAt = performance.now();
  /** Set once the state file records this copy: a failure after it can be continued. */
  let recording = false;
  try {
    const recorded = recordedState(args, file);
    if (recorded?.complete) {
      io.say(`telemetry copy: ${file.path} records this copy as complete (${count(recorded.occurrences.copied)} occurrences, ${count(recorded.logs.copied)} log records); nothing left to copy (--restart copies again)`);
      return exitCodes.copied;
    }
    const source = await openTelemetryStore(args.from, { role: 'source', maxRowsPerWrite: args.batchRows, env: io.env, label: `the source ${describeStore(args.from)} (--from)` });
    opened.push(source);
    const target = await openTelemetryStore(args.to, { role: 'target', maxRowsPerWrite: args.batchRows, env: io.env, label: `the target ${describeStore(args.to)} (--to)` });
    opened.push(target);
    const resumed = recorded !== undefined;
    const state = recorded ?? (await newState(args, file, target));
    recording = true;
    io.say(
      resumed
        ? `telemetry copy: continuing from ${state.source} to ${state.target} (${rangeText(state)}): ${count(state.occurrences.copied)} occurrences and ${count(state.logs.copied)} log records copied before; progress in ${file.path}`
        : `telemetry copy: from ${state.source} to ${state.target} (${rangeText(state)}); progress in ${file.path}`,
    );
    const copier = new TelemetryCopier(source.store, target.store, state, file, {
      fromMs: state.fromMs,
      toMs: state.toMs,
      batchRows: args.batchRows,
      stopped: io.stopped,
      report: progressReporter(io.say),
      afterWrite: io.afterWrite,
    });
    const outcome = await copier.run();
    const totals = `${count(state.occurrences.copied)} occurrences, ${count(state.logs.copied)} log records and ${count(state.statuses.applied)} error group status changes`;
    if (outcome === 'interrupted') {
      io.say(`telemetry copy: interrupted after ${seconds(performance.now() - startedAt)} with ${totals} copied; run the same command again to continue`);
      return exitCodes.interrupted;
    }
    const leftOut = state.statuses.leftOut > 0 ? `; ${count(state.statuses.leftOut)} status changes of groups with no occurrence in the range left out` : '';
    io.say(`telemetry copy: done in ${seconds(performance.now() - startedAt)}: ${totals} copied to ${state.target}${leftOut}`);
    return exitCodes.copied;
  } catch (error) {
    if (error instanceof RefusedError || error instanceof TelemetryStoreUnavailable || error instanceof CopyStateError) {
      io.say(`telemetry copy: ${error.message}`);
    } else {
      const detail = error instanceof ApiError ? `${error.code}: ${error.message}` : reasonOf(error);
      io.say(`telemetry copy failed: ${detail}${recording ? `; what was copied is recorded in ${file.path}: run the same command again to continue` : ''}`);
    }
    return exitCodes.failed;
  } finally {
    for (const store of opened.reverse()) await store.close().catch(() => undefined);
  }
}
