// Child process for the cross-process lock test: once told to go, increments one counter in a
// storage file a given number of times, each an atomic read-modify-write through `update`.
import { createFileStorage } from '../../src/node/index.js';

const storage = createFileStorage(process.argv[2]!);
const times = Number(process.argv[3]);
if (process.send) {
  const go = new Promise((resolve) => process.once('message', resolve));
  process.send('ready');
  await go;
}
for (let index = 0; index < times; index += 1) {
  await storage.update('counter', (current) => ({ value: String(Number(current ?? '0') + 1), result: undefined }));
}
process.disconnect?.();
