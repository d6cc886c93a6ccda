import net from 'node:net';

/**
 * Ports handed out here: below Linux's ephemeral range (32768-60999 by default), from which the
 * kernel picks the local port of every outgoing connection and of every `listen(0)`. A port taken
 * from that range and handed to a child to bind a moment later can meanwhile become the local end
 * of some connection (a test's client of PostgreSQL or Redis, another test's port 0); one below it
 * is only taken by another caller of this function.
 */
const firstPort = 20_000;
const portCount = 12_000;

function listensOn(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = firstPort + Math.floor(Math.random() * portCount);
    if (await listensOn(port)) return port;
  }
  // Everything tried was taken (a machine using the whole range): let the kernel choose.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
