import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  AccountsService,
  accountsTablesMigration,
  ApiError,
  InMemoryAttemptCounter,
  LoginThrottle,
  ManualClock,
  migrateToLatest,
  openDatabase,
  type Database,
} from '../src/index.js';
import { describeEachDatabase } from '../src/testing/index.js';

const hourMs = 3_600_000;
const password = 'a long enough password';

/** The code an ApiError a promise rejects with carries. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'none';
}

describeEachDatabase('accounts service', (testDatabase) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let database: Database;
  let accounts: AccountsService;

  beforeAll(async () => {
    const env = testDatabase().env;
    database = await openDatabase({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA ?? 'public', poolSize: 4, dataDir: env.DATA_DIR!, fileName: 'kit.sqlite', sqliteSynchronous: 'normal' });
    await migrateToLatest(database.db, database.dialect, { '20261127070800-accounts': accountsTablesMigration }, 'kit');
    accounts = new AccountsService({
      db: database.db,
      clock,
      sessionPolicy: { idleTimeoutMs: hourMs, absoluteLifetimeMs: 12 * hourMs, touchIntervalMs: 60_000 },
      loginThrottle: new LoginThrottle(new InMemoryAttemptCounter(clock)),
      invitationTtlMs: 72 * hourMs,
    });
  });
  afterAll(async () => {
    await database.close();
  });

  it('sets up exactly one first admin when two setups race, and never again', async () => {
    const outcomes = await Promise.allSettled([
      accounts.setup({ email: 'Ada@Example.com ', password, name: 'Ada' }),
      accounts.setup({ email: 'bob@example.com', password, name: 'Bob' }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await accounts.countAccounts()).toBe(1);
    expect(await codeOf(accounts.setup({ email: 'eve@example.com', password, name: 'Eve' }))).toBe('already-set-up');
  });

  it('lets an invitation create one account only, even when accepted twice at once', async () => {
    const [admin] = await accounts.accounts();
    const invitation = await accounts.createInvitation({ email: 'max@example.com', role: 'member', invitedBy: admin!.id });
    const outcomes = await Promise.allSettled([
      accounts.acceptInvitation({ token: invitation.token, name: 'Max', password }),
      accounts.acceptInvitation({ token: invitation.token, name: 'Max', password }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((await accounts.invitations()).map((i) => [i.email, i.status])).toEqual([['max@example.com', 'accepted']]);
    const signedIn = await accounts.signIn({ email: 'MAX@example.com', password }, { address: '203.0.113.1' });
    expect(signedIn.account).toMatchObject({ email: 'max@example.com', role: 'member' });
  });

  it('ends the sessions of a deactivated account and refuses its sign-in', async () => {
    const { session, account } = await accounts.signIn({ email: 'max@example.com', password }, { address: '203.0.113.2' });
    expect((await accounts.resume(session.sessionId))?.csrfToken).toBe(session.csrfToken);
    await accounts.changeAccount(account.id, { active: false });
    expect(await accounts.resume(session.sessionId)).toBeUndefined();
    expect(await codeOf(accounts.signIn({ email: 'max@example.com', password }, { address: '203.0.113.2' }))).toBe('invalid-credentials');
  });

  it('keeps the last active admin an admin', async () => {
    const admin = (await accounts.accounts()).find((a) => a.role === 'admin')!;
    expect(await codeOf(accounts.changeAccount(admin.id, { role: 'member' }))).toBe('conflict');
  });

  it('stores passwords as argon2id hashes and tokens as hashes only', async () => {
    const invitation = await accounts.createInvitation({ email: 'zoe@example.com', role: 'admin', invitedBy: (await accounts.accounts())[0]!.id });
    const rows = await database.db.selectFrom('accounts').select('password_hash').execute();
    for (const row of rows) expect(row.password_hash).toMatch(/^\$argon2id\$/);
    const tokens = await database.db.selectFrom('account_invitations').select('token_hash').execute();
    expect(tokens.map((t) => t.token_hash)).not.toContain(invitation.token);
  });
});
