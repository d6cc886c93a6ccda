import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The commit this build runs: `GIT_COMMIT` when set (container builds), else git, else "unknown". */
export function currentCommit(env: Record<string, string | undefined> = process.env): string {
  if (env.GIT_COMMIT) return env.GIT_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** Reads `name` and `version` from a package.json. */
export function packageInfo(packageJsonUrl: URL): { name: string; version: string } {
  const parsed = JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { name: string; version: string };
  return { name: parsed.name, version: parsed.version };
}
