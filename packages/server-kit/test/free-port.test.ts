import net from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from '../src/testing/index.js';

it('hands out ports below the ephemeral range that a server can listen on, different ones each time', async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_000);
  }
  expect(new Set(ports).size).toBeGreaterThan(15);
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
  expect((server.address() as net.AddressInfo).port).toBe(ports[0]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
