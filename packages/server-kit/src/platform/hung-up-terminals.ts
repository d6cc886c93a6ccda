import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * Node.js 20 restores a terminal's settings at exit and aborts when that fails, as it does on a
 * terminal that hung up (tcsetattr fails with EIO; nodejs/node#51519, fixed in Node.js 22 and 24).
 * From a process that ran for a while the abort itself fails and loops: the process spins at
 * full CPU, deaf to SIGTERM, instead of exiting. Node.js skips a descriptor that is closed by
 * then: at exit, this closes each of stdin, stdout and stderr that was a terminal at start and
 * no longer is (a hung-up terminal answers no terminal request). Call it once, after the
 * loggers are made (their flush at exit comes first). The launcher (scripts/start-all.mjs) calls
 * it too, from dist/.
 */
export function closeHungUpTerminalsAtExit(): void {
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  process.once('exit', () => {
    for (const fd of terminals) {
      if (isatty(fd)) continue;
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
    }
  });
}
