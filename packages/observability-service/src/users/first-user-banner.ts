import { accountsDb, countAccounts, type App } from '@playstack/server-kit';
import { observabilityDatabase } from '../database.js';

/** What the start banner tells an operator about the dashboard: where it is, and the first step on a fresh install. */
export async function dashboardBanner(app: App, url: string): Promise<string[]> {
  const lines = [`dashboard: ${url}/`];
  if ((await countAccounts(accountsDb(observabilityDatabase(app).db))) === 0) lines.push(`first run: open ${url}/ and create the first user (an administrator); then create an ingestion key under Settings > Keys`);
  return lines;
}
