import { accountsDb, countAccounts } from '@playstack/server-kit';
import type { ObservabilityApp } from '../database.js';

/** What the start banner tells an operator about the dashboard: where it is, and the first step on a fresh install. */
export async function dashboardBanner(app: ObservabilityApp, url: string): Promise<string[]> {
  const lines = [`dashboard: ${url}/`];
  if ((await countAccounts(accountsDb(app.database.db))) === 0) lines.push(`first run: open ${url}/ and create the first user (an administrator); then create an ingestion key under Settings > Keys`);
  return lines;
}
