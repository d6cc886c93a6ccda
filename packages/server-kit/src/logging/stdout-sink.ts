import { isatty } from 'node:tty';
import sonicBoom from 'sonic-boom';

/** Why standard output is gone: the failed write's error (EPIPE, EIO, ...). */
export type StdoutGoneListener = (error: NodeJS.ErrnoException) => void;

let sink: { write(line: string): void } | undefined;
let writer: sonicBoom.SonicBoom | undefined;
let goneError: NodeJS.ErrnoException | undefined;
const goneListeners = new Set<StdoutGoneListener>();

function markGone(error: NodeJS.ErrnoException): void {
  if (goneError) return;
  goneError = error;
  for (const listener of goneListeners) listener(error);
}

/**
 * Standard output as every logger of the process writes to it: one asynchronous writer on fd 1
 * (sonic-boom, as pino's default), flushed at exit. A write that fails means the output is gone
 * for good: EPIPE when the reader of a pipe went away (a log collector, a test runner), EIO when
 * the terminal hung up. Nothing more is written, and `onStdoutGone` listeners hear of it once.
 * A failure of process.stdout or process.stderr (a library's console line) counts the same,
 * instead of being an uncaught 'error' event.
 *
 * On a terminal the writes are synchronous, as Node's own to a terminal are: the flush at exit
 * writes what is buffered at once, ahead of an asynchronous write still in flight, so a service's
 * last two lines ("shutting down", "stopped") could reach the terminal the wrong way round.
 * A terminal reads a few lines a second; a pipe or a file (a log collector) keeps the async writer.
 *
 * sonic-boom 5, not the 4 pino brings: 4's synchronous flush (pino's flush at exit) retries a
 * failed write forever, whatever the error, so a process whose output was gone never exited.
 */
export function stdoutSink(): { write(line: string): void } {
  if (sink) return sink;
  const boom = (writer = new sonicBoom.SonicBoom({ fd: 1, sync: isatty(1) }));
  boom.on('error', markGone);
  for (const stream of [process.stdout, process.stderr]) stream.on('error', markGone);
  process.once('exit', () => {
    if (goneError) return;
    try {
      boom.flushSync();
    } catch (error) {
      markGone(error as NodeJS.ErrnoException);
    }
  });
  sink = {
    write: (line) => {
      if (!goneError) boom.write(line);
    },
  };
  return sink;
}

/**
 * Resolves once every line written so far has reached standard output, or after `timeoutMs`
 * (a reader that stopped reading must not hold a stopping service). A service's last line goes
 * through this before it exits: the synchronous flush at exit cannot wait for an asynchronous
 * write in flight, so it would write what is buffered ahead of it, out of order.
 */
export function drainStdout(timeoutMs = 1_000): Promise<void> {
  const boom = writer;
  if (!boom || goneError) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    boom.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Calls `listener` once standard output is gone (at once when it already is). */
export function onStdoutGone(listener: StdoutGoneListener): void {
  if (goneError) listener(goneError);
  else goneListeners.add(listener);
}
