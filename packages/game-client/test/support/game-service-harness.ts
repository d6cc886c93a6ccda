// The real game service, in-process on a port, behind a fault proxy, for the library's
// integration tests.
import type { AddressInfo } from 'node:net';
import { ManualClock, type App } from '@playstack/server-kit';
import { testRedisEnv, type TestDatabase } from '@playstack/server-kit/testing';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import { startFaultProxy, type FaultProxy, type StaticFiles } from './fault-proxy.js';

export interface GameServiceHarness {
  app: App;
  /** The service's clock: tests move it to expire tokens on the service side. */
  clock: ManualClock;
  /** Direct address of the service. */
  serviceUrl: string;
  proxy: FaultProxy;
  close(): Promise<void>;
}

export async function startGameService(
  database: TestDatabase,
  env: Record<string, string> = {},
  files: StaticFiles = {},
): Promise<GameServiceHarness> {
  const clock = new ManualClock(Date.now());
  const config = loadGameConfig({
    LOG_LEVEL: 'silent',
    GAME_DEV_AUTH: '1',
    // Every test signs in several players from one address.
    GAME_AUTH_RATE_LIMIT_MAX: '100000',
    GAME_PLAYER_RATE_LIMIT_MAX: '100000',
    ...database.env,
    // The two deployment shapes: one machine on SQLite, or PostgreSQL with Redis when configured.
    ...(database.dialect === 'postgres' ? testRedisEnv() : {}),
    ...env,
  });
  const app = await buildApp(config, { clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const serviceUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const proxy = await startFaultProxy(serviceUrl, files);
  return {
    app,
    clock,
    serviceUrl,
    proxy,
    async close() {
      await proxy.close();
      await app.close();
    },
  };
}
