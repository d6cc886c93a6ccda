// `npm run fuzz`: the fuzz suites of both services with FUZZ_RUNS cases in all (default 100,000),
// spread over every operation and every database the run covers (PostgreSQL with
// TEST_DATABASE_URL). Fails on any 5xx or a request the server does not answer. Ends with the
// figures: cases, 5xx, duration.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = process.env.FUZZ_RUNS ?? '100000';
const dir = mkdtempSync(join(tmpdir(), 'fuzz-'));
const figuresFile = join(dir, 'figures.jsonl');
const started = Date.now();
const result = spawnSync(
  'npx',
  ['vitest', 'run', 'packages/game-service/test/fuzz.test.ts', 'packages/observability-service/test/fuzz.test.ts'],
  { stdio: 'inherit', env: { ...process.env, FUZZ_RUNS: runs, FUZZ_FIGURES_FILE: figuresFile } },
);
let lines = [];
try {
  lines = readFileSync(figuresFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
} catch {
  // No suite got as far as its figures.
}
rmSync(dir, { recursive: true, force: true });
const cases = lines.reduce((sum, f) => sum + f.cases, 0);
const serverErrors = lines.reduce((sum, f) => sum + f.serverErrors, 0);
console.log(`\nfuzz: FUZZ_RUNS=${runs}: ${cases} cases over ${lines.length} suites (${lines.map((f) => f.what).join(', ')}), ${serverErrors} x 5xx, ${((Date.now() - started) / 1000).toFixed(0)} s, vitest exit ${result.status}`);
process.exit(result.status ?? 1);
