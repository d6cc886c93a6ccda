import type { GameDb, ManifestVersionsTable } from '../database.js';

/** A stored manifest version, without its document. */
export interface ManifestVersionSummary {
  readonly version: number;
  readonly author: string | null;
  readonly createdAt: number;
  /** What the version changed, one line each (null for versions stored before this was kept). */
  readonly changes: readonly string[] | null;
}

export interface StoredManifest extends ManifestVersionSummary {
  /** The document as stored (JSON text). */
  readonly document: string;
}

const maxInsertAttempts = 5;

function toSummary(row: Omit<ManifestVersionsTable, 'document'>): ManifestVersionSummary {
  return { version: row.version, author: row.author, createdAt: row.created_at, changes: row.changes === null ? null : (JSON.parse(row.changes) as string[]) };
}

function toStoredManifest(row: ManifestVersionsTable): StoredManifest {
  return { ...toSummary(row), document: row.document };
}

function isUniqueViolation(error: unknown): boolean {
  const err = error as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(err.message ?? '');
}

/** Appends a version (the next number); concurrent writers from several instances retry. */
export async function insertManifestVersion(
  db: GameDb,
  document: string,
  author: string | null,
  changes: readonly string[],
  now: number,
): Promise<ManifestVersionSummary> {
  for (let attempt = 1; ; attempt++) {
    const version = (await latestManifestVersion(db)) + 1;
    try {
      await db.insertInto('manifest_versions').values({ version, document, author, created_at: now, changes: JSON.stringify(changes) }).execute();
      return { version, author, createdAt: now, changes };
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= maxInsertAttempts) throw error;
    }
  }
}

/** The newest stored version, or undefined on a fresh install. */
export async function latestManifest(db: GameDb): Promise<StoredManifest | undefined> {
  const row = await db.selectFrom('manifest_versions').selectAll().orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row && toStoredManifest(row);
}

/** The newest stored version number (0 when none), cheap enough to poll. */
export async function latestManifestVersion(db: GameDb): Promise<number> {
  const row = await db.selectFrom('manifest_versions').select((eb) => eb.fn.max('version').as('version')).executeTakeFirst();
  return Number(row?.version ?? 0);
}

export async function manifestVersion(db: GameDb, version: number): Promise<StoredManifest | undefined> {
  const row = await db.selectFrom('manifest_versions').selectAll().where('version', '=', version).executeTakeFirst();
  return row && toStoredManifest(row);
}

/** Versions, newest first. */
export async function listManifestVersions(db: GameDb, limit: number): Promise<ManifestVersionSummary[]> {
  const rows = await db
    .selectFrom('manifest_versions')
    .select(['version', 'author', 'created_at', 'changes'])
    .orderBy('version', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toSummary);
}
