// Runs benchmarks one after another, each in its own process so one's memory and warm caches do
// not colour the next:  npm run bench [-- name ...]   (names: files in bench/ without .ts)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(benchDir)
  .filter((file) => file.endsWith('.ts') && file !== 'run-all.ts')
  .map((file) => file.slice(0, -3))
  .sort();
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of requested.length > 0 ? requested : available) {
  console.log(`\n=== bench/${name} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=source', `${benchDir}${name}.ts`], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
