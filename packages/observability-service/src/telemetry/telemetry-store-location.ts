import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { commonConfigProperties, redactUrl } from '@playstack/server-kit';

/** Where a telemetry store is: the service database (SQLite, PostgreSQL) or ClickHouse. */
export type TelemetryStoreLocation =
  | { kind: 'sqlite'; dataDir: string; fileName: string }
  | { kind: 'postgres'; url: string; schema: string }
  | { kind: 'clickhouse'; url: string; database: string };

/** The observability service's SQLite file in a DATA_DIR. */
export const serviceSqliteFile = 'observability.sqlite';
/** CLICKHOUSE_DATABASE's default. */
export const defaultClickHouseDatabase = 'playstack_telemetry';
const defaultPorts: Record<string, string> = { 'postgres:': '5432', 'postgresql:': '5432', 'http:': '8123', 'https:': '8443' };
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** DATABASE_SCHEMA's form. */
const schemaName = new RegExp(commonConfigProperties.DATABASE_SCHEMA.pattern!);
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The forms a store is written in, for messages. */
export const storeForms = 'sqlite:<DATA_DIR or .sqlite file>, postgres://<user>@<host>/<database>[?schema=<schema>] or clickhouse:http://<host>:8123/<database>';

/** A store written wrongly: the message says how. */
export class StoreLocationError extends Error {}

function parsedUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new StoreLocationError(`"${text}" is not a URL`);
  }
}

/**
 * A store from its command-line form: `sqlite:<DATA_DIR>` (the service's `observability.sqlite`
 * in it) or `sqlite:<file>.sqlite`; `postgres://...` (DATABASE_URL's form, `?schema=` for
 * DATABASE_SCHEMA, default public); `clickhouse:http(s)://host:port/<database>` (the database
 * defaults to playstack_telemetry). Relative paths are taken from `cwd`.
 */
export function parseStoreLocation(text: string, cwd: string): TelemetryStoreLocation {
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length);
    if (path === '') throw new StoreLocationError('sqlite: needs a DATA_DIR or a .sqlite file after it (sqlite:./data)');
    const absolute = resolve(cwd, path);
    return absolute.endsWith('.sqlite') ? { kind: 'sqlite', dataDir: dirname(absolute), fileName: basename(absolute) } : { kind: 'sqlite', dataDir: absolute, fileName: serviceSqliteFile };
  }
  if (text.startsWith('postgres://') || text.startsWith('postgresql://')) {
    const url = parsedUrl(text);
    const schema = url.searchParams.get('schema') ?? 'public';
    if (!schemaName.test(schema)) throw new StoreLocationError(`schema "${schema}" is not a PostgreSQL schema name (lowercase letters, digits and _, not starting with a digit)`);
    if (url.pathname.length <= 1) throw new StoreLocationError(`${describeUrl(url)} names no database (postgres://<user>@<host>/<database>)`);
    url.searchParams.delete('schema');
    return { kind: 'postgres', url: url.toString(), schema };
  }
  if (text.startsWith('clickhouse:')) {
    const url = parsedUrl(text.slice('clickhouse:'.length));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new StoreLocationError(`clickhouse: needs the server's HTTP interface after it (clickhouse:http://127.0.0.1:8123/${defaultClickHouseDatabase})`);
    const database = decodeURIComponent(url.pathname.slice(1)) || defaultClickHouseDatabase;
    if (!identifier.test(database)) throw new StoreLocationError(`ClickHouse database "${database}" is not a plain identifier`);
    url.pathname = '/';
    return { kind: 'clickhouse', url: url.toString().replace(/\/$/, ''), database };
  }
  throw new StoreLocationError(`"${text}" is not a store: ${storeForms}`);
}

/** A URL without its password (and no trailing slash), for messages and the state file. */
function describeUrl(url: URL): string {
  return redactUrl(url.toString()).replace(/\/$/, '');
}

/** The store as the command line names it, without a password. */
export function describeStore(location: TelemetryStoreLocation): string {
  switch (location.kind) {
    case 'sqlite':
      return `sqlite:${join(location.dataDir, location.fileName)}`;
    case 'postgres': {
      const url = new URL(location.url);
      url.searchParams.set('schema', location.schema);
      return describeUrl(url);
    }
    case 'clickhouse':
      return `clickhouse:${describeUrl(new URL(location.url))}/${location.database}`;
  }
}

/** The file, through symbolic links where it exists. */
function realFile(location: { dataDir: string; fileName: string }): string {
  const file = join(location.dataDir, location.fileName);
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** host:port of a URL, a loopback name standing for all of them. */
function serverOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return `${loopbackHosts.has(host) ? 'loopback' : host}:${url.port || defaultPorts[url.protocol] || ''}`;
}

/** Whether two locations are one store (the same file; the same server, database and schema). */
export function sameStore(a: TelemetryStoreLocation, b: TelemetryStoreLocation): boolean {
  if (a.kind === 'sqlite' && b.kind === 'sqlite') return realFile(a) === realFile(b);
  if (a.kind === 'postgres' && b.kind === 'postgres') {
    const [urlA, urlB] = [new URL(a.url), new URL(b.url)];
    return serverOf(urlA) === serverOf(urlB) && urlA.pathname === urlB.pathname && a.schema === b.schema;
  }
  if (a.kind === 'clickhouse' && b.kind === 'clickhouse') return serverOf(new URL(a.url)) === serverOf(new URL(b.url)) && a.database === b.database;
  return false;
}
