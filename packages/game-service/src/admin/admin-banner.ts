import { accountsDb, countAccounts } from '@playstack/server-kit';
import type { GameApp } from '../database.js';

/** What the start banner tells an operator about the admin pages: where they are, and the first step on a fresh install. */
export async function adminBanner(app: GameApp, url: string): Promise<string[]> {
  const lines = [`admin pages: ${url}/admin/`];
  if ((await countAccounts(accountsDb(app.database.db))) === 0) lines.push(`first run: register the first administrator at ${url}/admin/register`);
  return lines;
}
