import closeWithGrace from 'close-with-grace';
import { ConfigError } from '../config/load-config.js';
import type { App } from '../http/create-server.js';

export interface RunServiceOptions {
  name: string;
  port: number;
  host: string;
  shutdownTimeoutMs: number;
}

/**
 * Builds and starts a service. On SIGTERM/SIGINT it stops accepting connections, lets
 * in-flight requests finish (up to the timeout), closes resources and exits 0. A configuration
 * problem prints one line and exits 1.
 */
export async function runService(build: () => Promise<{ app: App; options: RunServiceOptions }>): Promise<void> {
  let built: { app: App; options: RunServiceOptions };
  try {
    built = await build();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
    } else {
      process.stderr.write(`startup failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  }
  const { app, options } = built;
  const { close } = closeWithGrace({ delay: options.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  // Started by a launcher (scripts/start-all.mjs) with an IPC channel: the channel closes when the
  // launcher dies, however it died (SIGKILL included), and a service must not outlive it.
  if (process.channel) {
    process.once('disconnect', () => {
      app.log.warn('the launcher that started this service is gone; shutting down');
      void close();
    });
    process.channel.unref();
  }
  await app.listen({ port: options.port, host: options.host });
}
