// Child process for the crash test: rewrites one large value forever, reporting each write
// that completed, until the test kills it mid-write.
import { createFileStorage } from '../../src/node/index.js';

const storage = createFileStorage(process.argv[2]!);
const filler = 'x'.repeat(200_000);
for (let generation = 1; ; generation += 1) {
  await storage.set('run-queue', JSON.stringify({ generation, filler }));
  process.send?.(generation);
}
