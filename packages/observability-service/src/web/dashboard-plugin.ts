import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, sendApiError, type App } from '@playstack/server-kit';

export interface DashboardOptions {
  /** The dashboard's build directory (index.html, assets/, and a few top-level files). */
  rootDir: string;
}

/** Where `npm run build` puts the dashboard: the observability-web package's dist (same depth from src/ and dist/). */
export const defaultDashboardDir = fileURLToPath(new URL('../../../observability-web/dist/', import.meta.url));

/**
 * Paths the dashboard never answers for, so an unknown API path stays a JSON 404 and the
 * service's own endpoints are never shadowed by the single-page app's fallback.
 */
const reservedPrefixes = ['/api', '/v1', '/healthz', '/readyz', '/metrics', '/openapi.json', '/version', '/documentation'];

// The app loads only its own scripts, styles and data; inline script is never needed.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: Record<string, string> = {
  'content-security-policy': contentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** Hashed build assets never change under their name: a year, immutable. */
const assetCacheControl = 'public, max-age=31536000, immutable';
/** index.html names the current assets, so browsers must revalidate it on every load. */
const documentCacheControl = 'no-cache';
const otherFileCacheControl = 'public, max-age=3600';

/**
 * True for an asset path of plain names: no `.` or `..` segment, backslash or NUL, however it
 * was escaped. Anything else is answered 404 before the file system is asked.
 */
export function isPlainAssetPath(pathname: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  return !/[\\\0]/.test(decoded) && decoded.split('/').every((segment) => segment !== '.' && segment !== '..');
}

function isReserved(path: string): boolean {
  return reservedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
}

function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Serves the dashboard at `/`: hashed assets under /assets with immutable caching, the build's
 * top-level files, and index.html for every other GET that a browser navigates to (client-side
 * routes such as /services/checkout), all with a strict CSP. Without a build, those paths
 * answer 503 saying how to build it, and the API keeps working.
 */
export async function dashboardPlugin(app: App, options: DashboardOptions): Promise<void> {
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders)) reply.header(name, value);
  });

  const indexFile = join(options.rootDir, 'index.html');
  const built = existsSync(indexFile);
  if (!built) app.log.warn({ rootDir: options.rootDir }, 'dashboard build not found; run `npm run build` to serve the dashboard');
  // Read once: the build does not change under a running process, and it is a few hundred bytes.
  const indexHtml = built ? readFileSync(indexFile) : undefined;

  const sendIndex = (request: FastifyRequest, reply: FastifyReply) => {
    if (!indexHtml) return sendApiError(request, reply, new ApiError('not-ready', 'The dashboard has not been built: run `npm run build`.'));
    return reply.header('cache-control', documentCacheControl).type('text/html; charset=utf-8').send(indexHtml);
  };

  if (built) {
    await app.register(fastifyStatic, {
      root: join(options.rootDir, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      cacheControl: false,
      allowedPath: isPlainAssetPath,
      setHeaders: (response) => response.setHeader('cache-control', assetCacheControl),
    });

    for (const name of readdirSync(options.rootDir)) {
      if (name === 'index.html' || name === 'assets' || !statSync(join(options.rootDir, name)).isFile()) continue;
      const body = readFileSync(join(options.rootDir, name));
      const type = name.endsWith('.svg') ? 'image/svg+xml' : name.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream';
      app.get(`/${name}`, { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', otherFileCacheControl).type(type).send(body),
      );
    }
  }

  app.get('/', { schema: { hide: true } }, async (request, reply) => sendIndex(request, reply));
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    if (isReserved(request.url) || !wantsHtml(request)) {
      reply.callNotFound();
      return reply;
    }
    return sendIndex(request, reply);
  });
}
