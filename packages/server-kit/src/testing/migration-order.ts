import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { ServiceMigration } from '../db/migrator.js';

/**
 * A migration written from now on is named `<UTC timestamp>-<what>`: `YYYYMMDDHHMMSS` (the moment
 * it was written, `date -u +%Y%m%d%H%M%S`), a hyphen, then kebab-case words. Two migrations
 * written apart cannot share a prefix, and the format sorts after every frozen `YYYY-MM-DD-NN-`
 * name (a digit sorts after the hyphen), so Kysely, which applies migrations in code-point order
 * of their names, applies them in the order they were written.
 */
export const migrationNamePattern = /^(\d{14})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * What is wrong with a service's migration registry, in registration order, given its frozen
 * names (the ones released before the timestamp rule, which never change): empty when nothing.
 */
export function migrationOrderProblems(names: readonly string[], frozenNames: readonly string[]): string[] {
  const problems: string[] = [];
  frozenNames.forEach((frozen, index) => {
    if (names[index] !== frozen) problems.push(`frozen migration ${frozen} must stay registered at position ${index + 1} (found ${names[index] ?? 'nothing'})`);
  });
  let previous: { name: string; stamp: string } | undefined;
  for (const name of names.slice(frozenNames.length)) {
    const stamp = migrationNamePattern.exec(name)?.[1];
    if (stamp === undefined) {
      problems.push(`${name} is not named <YYYYMMDDHHMMSS>-<kebab-case-words> (UTC: date -u +%Y%m%d%H%M%S)`);
      continue;
    }
    if (!isUtcTimestamp(stamp)) problems.push(`${name} starts with ${stamp}, which is not a real UTC date and time`);
    if (previous && stamp === previous.stamp) problems.push(`${name} shares its timestamp with ${previous.name}`);
    else if (previous && stamp < previous.stamp) problems.push(`${name} is registered after ${previous.name} but is older: keep the registry in timestamp order (rename an unreleased migration that landed late)`);
    previous = { name, stamp };
  }
  const sorted = [...names].sort();
  if (problems.length === 0 && sorted.some((name, index) => name !== names[index])) {
    problems.push(`the registry's order differs from the name order Kysely applies: ${sorted.join(', ')}`);
  }
  return problems;
}

function isUtcTimestamp(stamp: string): boolean {
  const iso = stamp.replace(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/, '$1-$2-$3T$4:$5:$6.000Z');
  const date = new Date(iso);
  // A day or hour out of range either fails to parse or rolls over into another moment.
  return !Number.isNaN(date.getTime()) && date.toISOString() === iso;
}

/**
 * The tests every service's migration registry must pass: frozen migrations stay where they are,
 * later ones follow the timestamp rule in order, and no file of the migrations folder is left out.
 */
export function describeMigrationOrder(migrations: Readonly<Record<string, ServiceMigration>>, frozenNames: readonly string[], folder: URL): void {
  const names = Object.keys(migrations);

  it('names every migration after the frozen ones <UTC timestamp>-<what>, unique and registered in the order Kysely applies them', () => {
    expect(migrationOrderProblems(names, frozenNames)).toEqual([]);
  });

  it('registers every migration file of its folder under its file name', () => {
    const unregistered = readdirSync(fileURLToPath(folder))
      .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
      .map((file) => file.slice(0, -'.ts'.length))
      .filter((name) => !names.includes(name));
    expect(unregistered).toEqual([]);
  });
}
