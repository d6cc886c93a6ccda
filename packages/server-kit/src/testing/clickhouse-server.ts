import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';

const startTimeoutMs = 60_000;
const pollMs = 100;
/** Debian's package installs the server's configuration here; the flags below move everything it writes into a temporary directory. */
const packagedConfig = '/etc/clickhouse-server/config.xml';

/** Whether `clickhouse-server` can be run here. */
export function clickHouseServerInstalled(): boolean {
  return spawnSync('sh', ['-c', 'command -v clickhouse-server'], { stdio: 'ignore' }).status === 0;
}

/**
 * A `clickhouse-server` of a test's own: free HTTP, native and interserver ports on 127.0.0.1,
 * data, temporary files and logs in a temporary directory; `dispose()` kills it by pid and
 * removes the directory. Never a ClickHouse other tests use.
 */
export class TestClickHouseServer {
  readonly httpPort: number;
  readonly #ports: { tcp: number; interserver: number };
  readonly #dir: string;
  #configFile = packagedConfig;
  #process: ChildProcess | undefined;

  private constructor(httpPort: number, tcp: number, interserver: number) {
    this.httpPort = httpPort;
    this.#ports = { tcp, interserver };
    this.#dir = mkdtempSync(join(tmpdir(), 'playstack-clickhouse-'));
  }

  static async #onFreePorts(): Promise<TestClickHouseServer> {
    return new TestClickHouseServer(await freePort(), await freePort(), await freePort());
  }

  /** Starts a server on free ports and resolves once it answers over HTTP. */
  static async start(): Promise<TestClickHouseServer> {
    const server = await TestClickHouseServer.#onFreePorts();
    await server.#start();
    return server;
  }

  /**
   * Starts `shards` servers that each know all of them as the shards of `cluster` (their
   * `remote_servers`, one replica per shard), for `Distributed` tables over them.
   */
  static async startCluster(cluster: string, shards: number): Promise<TestClickHouseServer[]> {
    const servers: TestClickHouseServer[] = [];
    for (let shard = 0; shard < shards; shard++) servers.push(await TestClickHouseServer.#onFreePorts());
    const replicas = servers.map((server) => `<shard><replica><host>127.0.0.1</host><port>${server.#ports.tcp}</port></replica></shard>`).join('');
    const remoteServers = `<yandex><remote_servers replace="replace"><${cluster}>${replicas}</${cluster}></remote_servers></yandex>`;
    try {
      for (const server of servers) {
        // The packaged configuration copied beside a config.d of the server's own: its files merge over it.
        const conf = join(server.#dir, 'conf');
        mkdirSync(join(conf, 'config.d'), { recursive: true });
        copyFileSync(packagedConfig, join(conf, 'config.xml'));
        copyFileSync(join(dirname(packagedConfig), 'users.xml'), join(conf, 'users.xml'));
        writeFileSync(join(conf, 'config.d', 'remote-servers.xml'), remoteServers);
        server.#configFile = join(conf, 'config.xml');
        await server.#start();
      }
    } catch (error) {
      for (const server of servers) await server.dispose();
      throw error;
    }
    return servers;
  }

  /** The server's process id while it runs (benchmarks read its CPU time). */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  async #start(): Promise<void> {
    const dir = this.#dir;
    const child = spawn(
      'clickhouse-server',
      [
        `--config-file=${this.#configFile}`,
        '--',
        `--path=${dir}/`,
        `--tmp_path=${dir}/tmp/`,
        `--user_files_path=${dir}/user_files/`,
        `--format_schema_path=${dir}/format_schemas/`,
        `--logger.log=${dir}/server.log`,
        `--logger.errorlog=${dir}/error.log`,
        '--logger.level=warning',
        `--http_port=${this.httpPort}`,
        `--tcp_port=${this.#ports.tcp}`,
        `--interserver_http_port=${this.#ports.interserver}`,
        '--listen_host=127.0.0.1',
        // The packaged 5 GiB mark cache is sized for a server of its own, not a test's.
        '--mark_cache_size=67108864',
      ],
      { stdio: 'ignore' },
    );
    this.#process = child;
    child.once('exit', () => {
      if (this.#process === child) this.#process = undefined;
    });
    const deadline = Date.now() + startTimeoutMs;
    while (!(await answers(this.url))) {
      if (!this.#process) throw new Error(`clickhouse-server on port ${this.httpPort} exited at start (see ${dir}/error.log)`);
      if (Date.now() > deadline) throw new Error(`clickhouse-server on port ${this.httpPort} did not answer within ${startTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Kills the server by pid and removes its directory. */
  async dispose(): Promise<void> {
    const child = this.#process;
    if (child) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** True when the server answers `/ping` with `Ok.`. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
    return response.ok && (await response.text()).startsWith('Ok.');
  } catch {
    return false;
  }
}

/** A ClickHouse for a suite: its URL and a database name of its own (created by whoever uses it). */
export interface TestClickHouse {
  readonly url: string;
  /** A fresh name per call: suites sharing one server never see each other's tables. */
  database(): string;
  dispose(): Promise<void>;
}

/** Whether ClickHouse suites can run: TEST_CLICKHOUSE_URL is set, or a server can be started here. */
export function clickHouseAvailable(): boolean {
  return Boolean(process.env.TEST_CLICKHOUSE_URL) || clickHouseServerInstalled();
}

/**
 * ClickHouse for tests: TEST_CLICKHOUSE_URL when set (CI starts one for the whole run), else a
 * server of the suite's own (TestClickHouseServer), stopped by `dispose()`.
 */
export async function startTestClickHouse(): Promise<TestClickHouse> {
  const database = () => `test_${randomBytes(6).toString('hex')}`;
  const shared = process.env.TEST_CLICKHOUSE_URL;
  if (shared) return { url: shared, database, dispose: async () => undefined };
  const server = await TestClickHouseServer.start();
  return { url: server.url, database, dispose: () => server.dispose() };
}
