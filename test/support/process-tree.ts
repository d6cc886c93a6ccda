import { execFileSync } from 'node:child_process';

/** Every process descended from `root` (its children, theirs, ...), deepest last, from `ps`. */
export function descendantPids(root: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((row) => row.length === 2);
  const found: number[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of rows) {
      if (parents.has(parent!) && !parents.has(pid!)) {
        parents.add(pid!);
        found.push(pid!);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * The processes a test file started through a wrapper (`script`, `unshare`): killing the wrapper
 * leaves what it started running, so each is remembered by pid when started, with whatever it
 * started by then, and `killAll` (in an afterAll, which runs even after a test timed out) sends
 * SIGKILL to every one of them that is still there.
 */
export class ProcessTrees {
  readonly #pids = new Set<number>();

  /** Remembers `pid` and the processes it started so far. */
  track(pid: number): void {
    this.#pids.add(pid);
    for (const descendant of descendantPids(pid)) this.#pids.add(descendant);
  }

  killAll(): void {
    for (const pid of [...this.#pids]) for (const descendant of descendantPids(pid)) this.#pids.add(descendant);
    for (const pid of this.#pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    this.#pids.clear();
  }
}

/** Whether a process with this pid exists (a zombie does not count: it has exited). */
export function alive(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false;
  }
}
