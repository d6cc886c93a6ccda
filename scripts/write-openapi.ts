// Regenerates the committed OpenAPI copies from the running route schemas:
//   npm run openapi:write
// The drift tests fail until the copies match what the services serve.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp as buildGame, loadGameConfig } from '@playstack/game-service';
import { buildApp as buildObservability, loadObservabilityConfig } from '@playstack/observability-service';

const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
try {
  const env = { LOG_LEVEL: 'silent' as const, DATA_DIR: dataDir };
  const targets = [
    { file: 'packages/game-service/openapi.json', app: await buildGame(loadGameConfig(env)) },
    { file: 'packages/observability-service/openapi.json', app: await buildObservability(loadObservabilityConfig(env)) },
  ];
  for (const { file, app } of targets) {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    writeFileSync(file, `${JSON.stringify(response.json(), null, 2)}\n`);
    await app.close();
    console.log(`wrote ${file}`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
