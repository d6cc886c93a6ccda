import { accountsDb, countAccounts, type App } from '@playstack/server-kit';
import { gameDatabase } from '../database.js';

/** What the start banner tells an operator about the admin pages: where they are, and the first step on a fresh install. */
export async function adminBanner(app: App, url: string): Promise<string[]> {
  const lines = [`admin pages: ${url}/admin/`];
  if ((await countAccounts(accountsDb(gameDatabase(app).db))) === 0) lines.push(`first run: register the first administrator at ${url}/admin/register`);
  return lines;
}
