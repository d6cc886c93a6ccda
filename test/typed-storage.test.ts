// Typed storage: every query is checked against the tables it names. A store takes its service's
// `Kysely<Database>` (game-service/src/database.ts, observability-service/src/database.ts), and
// no cast hides a type (`as unknown as`): this test reads every package's src/ and fails on
// either, so a new `Kysely<any>` cannot slip in unnoticed.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

const untypedDatabase = /\b(?:Kysely|Transaction)<any>/;
const doubleCast = /\bas unknown as\b/;

/**
 * Migrations run against the schema of their moment (tables later dropped or renamed), not the
 * service's `Database`; Kysely's `Migrator` itself takes a `Kysely<any>`. So their files, and the
 * kit's migration runner, may use `Kysely<any>`.
 */
function isMigration(file: string): boolean {
  return /\/migrations\//.test(file) || /(^|\/)[^/]*migrat[^/]*\.ts$/.test(file);
}

/**
 * Where they may still appear, each with why: the one narrowing of a database to some of its
 * tables (Kysely is invariant in its database type; see the file). An allowance no longer needed
 * fails the test too: the list only shrinks.
 */
const allowed: ReadonlyArray<{ path: RegExp; reason: string }> = [
  { path: /^packages\/server-kit\/src\/db\/table-view\.ts$/, reason: 'the one narrowing, as Kysely 0.29’s $pickTables' },
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative(root, path)] : [];
  });
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Every line of every package's src/ with a double cast, or an untyped database outside migrations. */
function findings(): Finding[] {
  return readdirSync(join(root, 'packages')).flatMap((name) =>
    sourceFiles(join(root, 'packages', name, 'src')).flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((text, i) => ({ file, line: i + 1, text: text.trim() }))
        .filter(({ text }) => doubleCast.test(text) || (untypedDatabase.test(text) && !isMigration(file))),
    ),
  );
}

it('has no Kysely<any> outside migrations and no `as unknown as` in any package’s src/', () => {
  const found = findings();
  const unexpected = found.filter(({ file }) => !allowed.some(({ path }) => path.test(file))).map(({ file, line, text }) => `${file}:${line}: ${text}`);
  expect(unexpected, 'type the query with the service’s Database (src/database.ts), and the value without a double cast').toEqual([]);
  const stale = allowed.filter(({ path }) => !found.some(({ file }) => path.test(file))).map(({ path, reason }) => `${path.source} (${reason})`);
  expect(stale, 'allowances no longer needed: remove them from this test').toEqual([]);
});
