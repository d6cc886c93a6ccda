import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { mintIngestionKey } from '../src/keys/ingestion-key-format.js';
import { asBrowser, setUpFirstAdmin } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';

describeEachDatabase('an ingestion key registered from INGESTION_KEY_FILE', (database) => {
  let dir: string;
  let keyFile: string;
  const { key, prefix } = mintIngestionKey();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bootstrap-key-'));
    keyFile = join(dir, 'sender.key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** An empty OTLP/JSON export with `credential`: 200 when the key is accepted, 401 otherwise. */
  async function ingestWith(app: Awaited<ReturnType<typeof buildTestApp>>, credential: string): Promise<number> {
    const response = await app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, payload: { resourceSpans: [] } });
    return response.statusCode;
  }

  it('authenticates ingestion before any user exists, is listed once across restarts, and stays revoked once revoked', async () => {
    let app = await buildTestApp(database(), { INGESTION_KEY_FILE: keyFile });
    expect(await ingestWith(app, key)).toBe(200);
    expect(await ingestWith(app, `${key.slice(0, -1)}x`)).toBe(401);
    await app.close();

    app = await buildTestApp(database(), { INGESTION_KEY_FILE: keyFile });
    const admin = await setUpFirstAdmin(app);
    const list = ((await asBrowser(app, admin, { url: '/api/v1/admin/keys' })).json() as { items: Array<{ id: string; name: string; prefix: string }> }).items;
    expect(list.filter((row) => row.prefix === prefix)).toEqual([expect.objectContaining({ name: 'INGESTION_KEY_FILE', prefix })]);
    expect(JSON.stringify(list)).not.toContain(key);
    const revoked = await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/admin/keys/${list.find((row) => row.prefix === prefix)!.id}` });
    expect(revoked.statusCode).toBeLessThan(300);
    await app.close();

    app = await buildTestApp(database(), { INGESTION_KEY_FILE: keyFile });
    expect(await ingestWith(app, key)).toBe(401);
    await app.close();
  });

  it('refuses to start on a file that holds no ingestion key', async () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not-a-key\n');
    await expect(buildTestApp(database(), { INGESTION_KEY_FILE: bad })).rejects.toThrow(ConfigError);
    await expect(buildTestApp(database(), { INGESTION_KEY_FILE: join(dir, 'missing.key') })).rejects.toThrow(/cannot be read/);
  });
});
