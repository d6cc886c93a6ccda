import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const startTimeoutMs = 10_000;
const pollMs = 20;

/**
 * A `redis-server` of a test's own, on a free port, for chaos tests: `stop()` kills it by pid,
 * `start()` brings it back empty on the same port (it keeps nothing on disk). Never the shared
 * Redis other tests use.
 */
export class TestRedisServer {
  readonly port: number;
  readonly #dir: string;
  #process: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
    this.#dir = mkdtempSync(join(tmpdir(), 'playstack-redis-'));
  }

  /** Starts a server on a free port and waits until it answers PING. */
  static async start(): Promise<TestRedisServer> {
    const server = new TestRedisServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  /** Starts the server (empty: no snapshot, no append-only file) and resolves once it answers PING. */
  async start(): Promise<void> {
    if (this.#process) throw new Error('the test Redis server is running already');
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir, '--loglevel', 'warning'],
      { stdio: 'ignore' },
    );
    this.#process = child;
    child.once('exit', () => {
      if (this.#process === child) this.#process = undefined;
    });
    const deadline = Date.now() + startTimeoutMs;
    while (!(await answersPing(this.port))) {
      if (!this.#process) throw new Error(`redis-server on port ${this.port} exited at start`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer within ${startTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Kills the server by pid (SIGKILL: it loses everything) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    child.kill('SIGCONT');
    await exited;
  }

  /** Pauses the server (SIGSTOP): connections stay open and nothing answers, like a network black hole. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** Lets a paused server go on (SIGCONT). */
  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  /** Stops the server and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** True when something on the port answers `PING` with `+PONG`. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
