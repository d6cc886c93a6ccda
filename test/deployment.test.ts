// What can be checked of the container and systemd files without a container engine: that they
// parse, agree with the repository (files copied, Node.js flags, ports, variables the services
// read), and that the command an image runs behaves as PID 1 should, as an unprivileged user,
// in a PID namespace of its own.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { likelyTypos } from '@playstack/server-kit';
import { freePort } from '@playstack/server-kit/testing';
import { ProcessTrees } from './support/process-tree.js';
import { gameConfigSchema, loadGameConfig } from '@playstack/game-service';
import { loadObservabilityConfig, observabilityConfigSchema } from '@playstack/observability-service';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

const services = {
  'game-service': { portVariable: 'GAME_PORT', port: 8080, published: [8080], load: loadGameConfig, known: Object.keys(gameConfigSchema.properties) },
  // OTLP/gRPC listens on 4317 too (OTLP_GRPC_PORT unset).
  'observability-service': { portVariable: 'OBSERVABILITY_PORT', port: 8081, published: [8081, 4317], load: loadObservabilityConfig, known: Object.keys(observabilityConfigSchema.properties) },
} as const;
type ServiceName = keyof typeof services;
const serviceNames = Object.keys(services) as ServiceName[];

function nodeFlagsOf(service: ServiceName): string[] {
  return (JSON.parse(read(`packages/${service}/package.json`)) as { nodeFlags?: string[] }).nodeFlags ?? [];
}

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}
interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages and their instructions (continuation lines joined, comments dropped). */
function dockerfileStages(): Stage[] {
  const logical = read('Dockerfile')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (keyword!.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!)!;
      stages.push({ name: name ?? String(stages.length), from: from!, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ keyword: keyword!.toUpperCase(), args: args! });
    }
  }
  return stages;
}

/** A stage's instructions, with those of the stages it is built FROM first. */
function inherited(stages: Stage[], name: string): Instruction[] {
  const stage = stages.find((candidate) => candidate.name === name)!;
  const parent = stages.find((candidate) => candidate.name === stage.from);
  return [...(parent ? inherited(stages, parent.name) : []), ...stage.instructions];
}

function imageInstructions(service: ServiceName): Instruction[] {
  return inherited(dockerfileStages(), service);
}

/** A service target's ENV (the runtime's), CMD and HEALTHCHECK command, as an engine would run them. */
function imageOf(service: ServiceName): { env: Record<string, string>; cmd: string[]; healthcheck: string[]; user: string } {
  const instructions = inherited(dockerfileStages(), service);
  const env: Record<string, string> = {};
  for (const { args } of instructions.filter((instruction) => instruction.keyword === 'ENV')) {
    for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
  }
  const last = (keyword: string) => instructions.filter((instruction) => instruction.keyword === keyword).at(-1)!.args;
  const cmd = JSON.parse(last('CMD')) as string[];
  const healthcheck = JSON.parse(last('HEALTHCHECK').replace(/^.*?CMD\s+/, '')) as string[];
  return { env, cmd, healthcheck, user: last('USER') };
}

describe('Dockerfile', () => {
  const stages = dockerfileStages();
  // `unshare` and the service it runs as PID 1 (which outlives a killed `unshare`), killed by pid
  // even when a test times out.
  const started = new ProcessTrees();
  afterAll(() => started.killAll());

  it('builds in one stage and runs from another, as an unprivileged user, one target per service', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime', 'observability-service', 'game-service']);
    expect(stages.find((stage) => stage.name === 'runtime')!.from).not.toBe('build');
    for (const service of serviceNames) expect(imageOf(service).user).toBe('node');
    // Nothing from the build stage but what the services run: no compiler, no sources, no dev tools.
    const copied = inherited(stages, 'game-service').filter((instruction) => instruction.keyword === 'COPY');
    expect(copied.every((instruction) => instruction.args.startsWith('--from=build '))).toBe(true);
  });

  it('copies only files the repository has and the build context keeps', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    const sources = stages
      .find((stage) => stage.name === 'build')!
      .instructions.filter((instruction) => instruction.keyword === 'COPY')
      .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect(existsSync(join(root, source)), source).toBe(true);
      for (const pattern of ignored) expect(source.replace(/\/$/, '').endsWith(pattern.replace(/^\*\*\//, '')), `${source} is excluded by ${pattern}`).toBe(false);
    }
    // What the services read at run time besides their dist/: the protocol's JSON Schema.
    expect(read('packages/observability-service/src/ingest/envelope-validator.ts')).toContain('docs/protocol-v1.schema.json');
    expect(sources).toContain('docs/protocol-v1.schema.json');
  });

  it('copies what the root package\'s install scripts run before it runs npm ci', () => {
    const build = stages.find((stage) => stage.name === 'build')!.instructions;
    const install = build.findIndex((instruction) => instruction.keyword === 'RUN' && instruction.args.startsWith('npm ci'));
    const copiedBefore = build.slice(0, install).filter((instruction) => instruction.keyword === 'COPY').flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1));
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'].flatMap((name) => (scripts[name] ? [scripts[name]] : []));
    const files = lifecycle.flatMap((command) => command.split(/\s+/).filter((word) => /^scripts\//.test(word)));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(copiedBefore, file).toContain(file);
  });

  it.each(serviceNames)('%s: runs node itself (PID 1) with the flags its package.json lists, and checks /healthz on its port', (service) => {
    const image = imageOf(service);
    expect(image.cmd).toEqual(['node', ...nodeFlagsOf(service), `packages/${service}/dist/main.js`]);
    expect(image.healthcheck.slice(0, 2)).toEqual(['node', '-e']);
    expect(image.healthcheck[2]).toContain(`process.env.${services[service].portVariable} || ${services[service].port}}/healthz`);
    expect(image.env).toMatchObject({ HOST: '0.0.0.0', DATA_DIR: '/data', NODE_ENV: 'production' });
    expect(imageInstructions(service).filter((instruction) => instruction.keyword === 'EXPOSE').map((instruction) => instruction.args)).toEqual([services[service].published.join(' ')]);
  });

  it.each(serviceNames)(
    '%s: its command, run as PID 1 by an unprivileged user, answers its health check, stops cleanly on SIGTERM (docker stop) and exits 0',
    async (service) => {
      // The image runs the built service, as npm start does: bring dist/ up to date first.
      execFileSync(process.execPath, ['--input-type=module', '-e', "process.exitCode = (await import('./scripts/build.mjs')).buildIfStale(() => {})"], { cwd: root, stdio: 'ignore' });
      const image = imageOf(service);
      const dataDir = mkdtempSync(join(tmpdir(), 'pid1-'));
      chmodSync(dataDir, 0o777);
      const port = await freePort();
      const env = { PATH: process.env.PATH, ...image.env, ...operatorEnv, DATA_DIR: dataDir, HOST: '127.0.0.1', [services[service].portVariable]: String(port), OTLP_GRPC_PORT: '0', LOG_FORMAT: 'json' };
      const [command, ...args] = image.cmd;
      const container = spawn('unshare', ['--pid', '--fork', '--mount-proc', 'setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', command!, ...args], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.track(container.pid!);
      let output = '';
      container.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      container.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => container.on('close', (code) => resolve(code)));
      const healthcheck = () => {
        try {
          execFileSync(image.healthcheck[0]!, image.healthcheck.slice(1), { env, stdio: 'ignore', timeout: 3_000 });
          return 0;
        } catch (error) {
          return (error as { status: number | null }).status;
        }
      };
      try {
        const deadline = Date.now() + 60_000;
        // Healthy from the moment it holds its port (while it starts, too); then listening for real.
        while (healthcheck() !== 0 || !output.includes('"msg":"listening at')) {
          if (Date.now() > deadline) throw new Error(`no healthy service:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        started.track(container.pid!);
        const events = () => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { pid: number; msg: string });
        expect(events().length).toBeGreaterThan(0);
        expect(events().every((event) => event.pid === 1)).toBe(true);
        // `docker stop`: SIGTERM to PID 1, seen from outside its namespace.
        const pid1 = Number(readFileSync(`/proc/${container.pid}/task/${container.pid}/children`, 'utf8').trim());
        process.kill(pid1, 'SIGTERM');
        expect(await exited).toBe(0);
        expect(events().at(-1)!.msg).toMatch(/^stopped \(SIGTERM\) in \d+ ms/);
        expect(healthcheck()).toBe(1);
      } finally {
        started.killAll();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

/** What an operator puts in compose's environment: the one variable it requires. */
const operatorEnv: Record<string, string> = { GAME_TOKEN_SECRET: 'b1e6c0f2a9d84c4e8f0a7d3c5b2e1f90' };

/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?error}` against `env`. */
function interpolate(value: unknown, env: Record<string, string> = operatorEnv): string {
  return String(value).replace(/\$\{(\w+)(?:(:-|:\?)([^}]*))?\}/g, (_match, name: string, kind: string | undefined, word: string | undefined) => {
    if (env[name] !== undefined) return env[name];
    if (kind === ':?') throw new Error(`compose refuses to start: ${word}`);
    return kind === ':-' ? word! : '';
  });
}

describe('compose.yaml', () => {
  interface ComposeService {
    image?: string;
    build?: { context: string; target: string };
    environment?: Record<string, unknown>;
    ports?: string[];
    depends_on?: Record<string, { condition: string }>;
    stop_grace_period?: string;
    healthcheck?: { test: string[] };
  }
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const environmentOf = (service: ComposeService) => Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(value)]));

  it('runs both services, built from this repository, with PostgreSQL and Redis', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['game-service', 'observability-service', 'postgres', 'redis']);
    const targets = dockerfileStages().map((stage) => stage.name);
    for (const service of serviceNames) {
      expect(compose.services[service]!.build).toEqual({ context: '.', target: service });
      expect(targets).toContain(service);
      expect(compose.services[service]!.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    for (const backend of ['postgres', 'redis']) expect(compose.services[backend]!.healthcheck?.test.length).toBeGreaterThan(1);
  });

  it.each(serviceNames)('%s: its environment is valid configuration, with no unknown variables, pointing at the compose PostgreSQL and Redis', (service) => {
    const env = environmentOf(compose.services[service]!);
    // The image's own ENV comes first (NODE_ENV=production, HOST, DATA_DIR), compose's on top.
    const config = services[service].load({ ...imageOf(service).env, ...env });
    expect(likelyTypos(env, services[service].known)).toEqual([]);
    for (const name of Object.keys(env)) expect(services[service].known, name).toContain(name);
    const postgres = environmentOf(compose.services.postgres!);
    const database = new URL(config.DATABASE_URL!);
    expect([database.hostname, database.username, database.password, database.pathname]).toEqual(['postgres', postgres.POSTGRES_USER, postgres.POSTGRES_PASSWORD, `/${postgres.POSTGRES_DB}`]);
    expect(new URL(config.REDIS_URL!).hostname).toBe('redis');
    expect(compose.services[service]!.ports).toEqual(services[service].published.map((port) => `${port}:${port}`));
    // The container listens on the service's default port, the one published.
    expect((config as unknown as Record<string, unknown>)[services[service].portVariable]).toBe(services[service].port);
    // Longer than the service's own grace period for requests in flight.
    expect(Number.parseInt(compose.services[service]!.stop_grace_period!, 10) * 1000).toBeGreaterThan(config.SHUTDOWN_TIMEOUT_MS);
  });

  it('refuses to start without GAME_TOKEN_SECRET, which the production image requires, saying how to make one', () => {
    expect(() => interpolate(compose.services['game-service']!.environment!.GAME_TOKEN_SECRET, {})).toThrow('set GAME_TOKEN_SECRET to 32 or more random characters');
  });

  it('gives each service a schema and a Redis key prefix of its own', () => {
    const [game, observability] = serviceNames.map((service) => environmentOf(compose.services[service]!));
    expect(game!.DATABASE_SCHEMA).not.toBe(observability!.DATABASE_SCHEMA);
    expect(game!.REDIS_KEY_PREFIX).not.toBe(observability!.REDIS_KEY_PREFIX);
  });
});

describe('systemd units', () => {
  it.each([
    ['game-service', 'deploy/systemd/playstack-game.service'],
    ['observability-service', 'deploy/systemd/playstack-observability.service'],
  ] as const)('%s: runs node itself with its flags, stops on SIGTERM with more time than the service takes, restarts on failure', (service, file) => {
    const settings = new Map<string, string[]>();
    for (const line of read(file).split('\n')) {
      const match = /^(\w+)=(.*)$/.exec(line);
      if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
    }
    expect(settings.get('ExecStart')).toEqual([['/usr/bin/node', ...nodeFlagsOf(service), `packages/${service}/dist/main.js`].join(' ')]);
    expect(settings.get('KillSignal')).toEqual(['SIGTERM']);
    expect(Number(settings.get('TimeoutStopSec')![0]) * 1000).toBeGreaterThan(services[service].load({}).SHUTDOWN_TIMEOUT_MS);
    expect(settings.get('Restart')).toEqual(['on-failure']);
    expect(settings.get('User')).toEqual(['playstack']);
    const environment = Object.fromEntries(settings.get('Environment')!.map((assignment) => assignment.split('=') as [string, string]));
    expect(environment.NODE_ENV).toBe('production');
    // With what the unit's EnvironmentFile must hold (GAME_TOKEN_SECRET for the game service).
    expect(() => services[service].load({ ...environment, ...operatorEnv })).not.toThrow();
  });
});
