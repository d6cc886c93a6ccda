import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadId, Worker } from 'node:worker_threads';
import type { Clock } from '@playstack/server-kit';
import type { PackedLogRows } from '../logs/index.js';
import type { NewOccurrence } from '../storage/storage-tables.js';
import type { SqliteWriterSettings, WriterReply, WriterRequest } from './sqlite-writer-protocol.js';
import type { CommitReport } from './telemetry-store.js';

interface Pending {
  /** The thread it was sent to. */
  worker: Promise<Worker>;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The writer thread's module from the TypeScript sources (tests, `tsx`): bundled once per process
 * with esbuild (which tsx brings), into the repository's node_modules/.cache so that its
 * `require` of better-sqlite3 resolves as the sources' does. A worker loading the sources
 * through tsx's hooks took 1-2 s to start; the bundle loads in a tenth of that.
 */
let bundledEntry: Promise<URL> | undefined;

async function bundleFromSources(entry: URL): Promise<URL> {
  const esbuild = await import('esbuild');
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    external: ['better-sqlite3', 'better-sqlite3-13'],
    // The bundle is ESM; what it bundles of CommonJS may call require.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    write: false,
    logLevel: 'silent',
  });
  const code = built.outputFiles[0]!.contents;
  const dir = join(root, 'node_modules', '.cache', 'playstack-sqlite-writer');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    // Written aside and renamed: test files running in parallel may bundle the same code at once.
    const partial = `${file}.${process.pid}.${threadId}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  return pathToFileURL(file);
}

/** Starts the writer thread's module: the compiled one, or a bundle of the TypeScript sources. */
export async function startWriterWorker(settings: SqliteWriterSettings): Promise<Worker> {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sqlite-writer-worker.js', import.meta.url), { workerData: settings });
  bundledEntry ??= bundleFromSources(new URL('./sqlite-writer-worker.ts', import.meta.url));
  return new Worker(await bundledEntry, { workerData: settings });
}

export interface SqliteWriterThreadOptions {
  settings: SqliteWriterSettings;
  clock: Clock;
  onCommit: (commit: CommitReport) => void;
  /** Starts the thread (`startWriterWorker`; tests keep a hand on it). */
  start?: (settings: SqliteWriterSettings) => Promise<Worker>;
}

/**
 * The SQLite store's writes on a thread of their own (sqlite-writer-worker.ts): its own
 * connection to the service database runs the group commits (occurrences, rollups, error groups,
 * log records, counters) while this thread parses, validates and answers. A write resolves once
 * the thread reports its transaction committed, so the acknowledgement still follows the commit;
 * reads stay on the service's connection, which sees every committed write (WAL). The thread
 * starts with the first write (an instance that only serves dashboards never starts it); if it
 * dies, what it held is rejected (the requests get a retryable 503) and the next write starts a
 * new one.
 */
export class SqliteWriterThread {
  readonly #options: Required<SqliteWriterThreadOptions>;
  /** The running thread, once ready (a rejection: it could not start). */
  #worker: Promise<Worker> | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #idleWaiters: Array<() => void> = [];
  #closed = false;

  constructor(options: SqliteWriterThreadOptions) {
    this.#options = { start: startWriterWorker, ...options };
  }

  /** Stores the rows and log records (`OccurrenceWriter.write` on the thread); resolves once committed. */
  async write(rows: readonly NewOccurrence[], refused: number, logs: PackedLogRows): Promise<void> {
    if (rows.length === 0 && logs.count === 0 && refused === 0) return;
    return this.#send((id) => ({ type: 'write', id, now: this.#options.clock.now(), rows, refused, logs }));
  }

  /** Resolves when every write sent so far has settled. */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Waits for what is in flight, then closes the thread's connection and ends it. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
    const worker = await this.#worker?.catch(() => undefined);
    this.#worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies WriterRequest);
    await exited;
  }

  async #send(request: (id: number) => WriterRequest): Promise<void> {
    if (this.#closed) throw new Error('the SQLite writer is closed');
    const worker = this.#running();
    const id = this.#nextId++;
    const settled = new Promise<void>((resolve, reject) => this.#pending.set(id, { worker, resolve, reject }));
    let started: Worker;
    try {
      started = await worker;
    } catch (error) {
      this.#settle(id, (pending) => pending.reject(error instanceof Error ? error : new Error(String(error))));
      return settled;
    }
    started.postMessage(request(id));
    return settled;
  }

  #running(): Promise<Worker> {
    if (this.#worker) return this.#worker;
    const worker = this.#options.start(this.#options.settings).then((started) => {
      started.on('message', (reply: WriterReply) => this.#receive(reply));
      started.on('error', (error) => this.#lost(worker, error));
      started.on('exit', (code) => this.#lost(worker, new Error(`the SQLite writer thread exited (code ${code})`)));
      return new Promise<Worker>((resolve, reject) => {
        const ready = (reply: WriterReply) => {
          if (reply.type !== 'ready') return;
          started.off('message', ready);
          resolve(started);
        };
        started.on('message', ready);
        started.once('error', reject);
        started.once('exit', (code) => reject(new Error(`the SQLite writer thread exited (code ${code}) before it was ready`)));
      });
    });
    this.#worker = worker;
    // A thread that never started is forgotten: the next write tries again.
    worker.catch(() => this.#lost(worker, new Error('it did not start')));
    return worker;
  }

  #receive(reply: WriterReply): void {
    switch (reply.type) {
      case 'done':
        this.#settle(reply.id, (pending) => pending.resolve());
        return;
      case 'failed':
        this.#settle(reply.id, (pending) => pending.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name })));
        return;
      case 'commit':
        this.#options.onCommit(reply.commit);
        return;
      default:
        return;
    }
  }

  /** The thread died (or exited on close): what it held is rejected, and the next write starts another. */
  #lost(worker: Promise<Worker>, error: Error): void {
    if (this.#worker === worker) this.#worker = undefined;
    const failed = new Error(`the SQLite writer thread stopped before committing: ${error.message}`, { cause: error });
    for (const [id, pending] of [...this.#pending]) if (pending.worker === worker) this.#settle(id, () => pending.reject(failed));
  }

  #settle(id: number, settle: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    settle(pending);
    if (this.#pending.size === 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }
}
