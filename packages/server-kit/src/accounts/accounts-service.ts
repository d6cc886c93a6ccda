import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { AttemptCounter } from '../auth/attempt-counter.js';
import { KyselySessionStore } from './kysely-session-store.js';
import type { LoginThrottle, SignInSource } from '../auth/login-throttle.js';
import type { MailMessage, Mailer } from '../auth/mailer.js';
import { hashOpaqueToken, newOpaqueToken } from '../auth/opaque-token.js';
import { hashPassword, passwordNeedsRehash, verifyPassword, verifyPasswordAgainstNothing } from '../auth/password-hashing.js';
import { SessionManager, type SessionPolicy, type StartedSession } from '../auth/session-manager.js';
import type { Clock } from '../system/clock.js';
import type { AccountRow, InvitationRow, Role } from './account-tables.js';
import * as store from './accounts-store.js';

/** An account as the API shows it: never the password hash. */
export interface PublicAccount {
  id: string;
  email: string;
  name: string;
  role: Role;
}

/** An account as the admin list shows it. */
export interface ManagedAccount extends PublicAccount {
  active: boolean;
  createdAt: number;
}

/** An account just signed in, and its new session. */
export interface SignedIn {
  account: PublicAccount;
  session: StartedSession;
}

/** The signed-in account of a live session. */
export interface ResumedSession {
  account: PublicAccount;
  idHash: string;
  csrfToken: string;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** An invitation as the admin pages show it (never the token). */
export interface InvitationSummary {
  id: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
}

export type SignInOutcome = 'success' | 'failure' | 'throttled';

/** Password reset by mail, for services that offer it. */
export interface PasswordResetOptions {
  ttlMs: number;
  /** Counts reset requests per email and per address, so the endpoint cannot flood a mailbox. */
  requests: AttemptCounter;
  mailer: Mailer;
  /** The mail carrying a reset token to its account's address. */
  message(to: string, token: string, expiresAt: number): MailMessage;
  /** Told when a mail could not be sent (the request has been answered by then). */
  onMailFailure(error: unknown): void;
}

export interface AccountsServiceOptions {
  db: store.AccountsDb;
  clock: Clock;
  sessionPolicy: SessionPolicy;
  loginThrottle: LoginThrottle;
  /** Failed password changes, counted apart so they never spend the sign-in budget; unset: no password change. */
  passwordChangeThrottle?: LoginThrottle | undefined;
  passwordReset?: PasswordResetOptions | undefined;
  invitationTtlMs: number;
  /** Told each sign-in attempt's outcome, for alerting on attacks. */
  onSignIn?: ((outcome: SignInOutcome) => void) | undefined;
}

const resetRequestWindowMs = 60 * 60_000;
const maxResetRequestsPerEmail = 3;
const maxResetRequestsPerAddress = 20;

const invalidCredentials = () => new ApiError('invalid-credentials', 'The email or password is incorrect.');
const invalidToken = (what: string) => new ApiError('invalid-grant', `The ${what} token is unknown, expired or already used.`);

/** Emails compare case-insensitively and without surrounding spaces; stored in this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Operator accounts of a service: first-run setup, sign-in (throttled), sessions with their CSRF
 * tokens, invitations, password change and reset, roles and deactivation. Everything but HTTP:
 * each service puts its own routes and pages over it.
 */
export class AccountsService {
  readonly #o: AccountsServiceOptions;
  readonly #sessions: SessionManager;

  constructor(options: AccountsServiceOptions) {
    this.#o = options;
    this.#sessions = new SessionManager(new KyselySessionStore(options.db), options.clock, options.sessionPolicy);
  }

  async countAccounts(): Promise<number> {
    return store.countAccounts(this.#o.db);
  }

  /** Creates the first admin and signs them in; 409 `already-set-up` once anyone has done so. */
  async setup(input: { email: string; password: string; name: string }): Promise<SignedIn> {
    const { db, clock } = this.#o;
    if ((await store.countAccounts(db)) > 0) throw alreadySetUp();
    const passwordHash = await hashPassword(input.password);
    const account = newAccount({ email: input.email, name: input.name, role: 'admin', passwordHash, now: clock.now() });
    await db.transaction().execute(async (trx) => {
      // The claim is a unique row: of two racing setups one inserts it, the other gets 409,
      // and setup stays closed even if every account were later deactivated.
      if (!(await store.claimSetup(trx, account.id, account.created_at))) throw alreadySetUp();
      await store.insertAccount(trx, account);
    });
    return this.#signIn(account);
  }

  /**
   * Signs in with email and password; the same answer for an unknown email, a wrong password and
   * a deactivated account. `device` is the trusted-device id the browser's cookie holds, if any.
   */
  async signIn(input: { email: string; password: string }, from: { address: string; device?: string | undefined }): Promise<SignedIn> {
    const { db, loginThrottle, onSignIn } = this.#o;
    const source: SignInSource = { account: normalizeEmail(input.email), ...from };
    try {
      await loginThrottle.assertAllowed(source);
    } catch (error) {
      onSignIn?.('throttled');
      throw error;
    }
    const account = await store.findAccountByEmail(db, source.account);
    const passwordOk = account ? await verifyPassword(account.password_hash, input.password) : await verifyPasswordAgainstNothing(input.password);
    if (!account || !passwordOk || account.active !== 1) {
      onSignIn?.('failure');
      await loginThrottle.recordFailure(source);
      throw invalidCredentials();
    }
    onSignIn?.('success');
    await loginThrottle.recordSuccess(source);
    // Hashes made under older, weaker parameters are upgraded while the password is at hand.
    if (passwordNeedsRehash(account.password_hash)) {
      await store.updateAccount(db, account.id, { password_hash: await hashPassword(input.password) }, this.#o.clock.now());
    }
    return this.#signIn(account);
  }

  /** The signed-in account of a session cookie, or undefined (no session, expired, or account deactivated). */
  async resume(sessionId: string): Promise<ResumedSession | undefined> {
    const session = await this.#sessions.resume(sessionId);
    if (!session) return undefined;
    const account = await store.findAccountById(this.#o.db, session.userId);
    if (!account || account.active !== 1) return undefined;
    return { account: publicAccount(account), idHash: session.idHash, csrfToken: session.csrfToken };
  }

  /** Ends one session (sign-out, or a sign-in replacing it). */
  async signOut(sessionId: string): Promise<void> {
    await this.#sessions.end(sessionId);
  }

  /**
   * Changes a password given the current one, and ends the account's other sessions (a thief
   * holding one loses it); the session in use stays.
   */
  async changePassword(accountId: string, keepIdHash: string, input: { currentPassword: string; newPassword: string }, address: string): Promise<void> {
    const { db, clock, passwordChangeThrottle } = this.#o;
    if (!passwordChangeThrottle) throw new Error('this service was built without password change');
    const account = await store.findAccountById(db, accountId);
    if (!account) throw new ApiError('unauthorized', 'Sign in first.');
    // Throttled like sign-in, so a hijacked session cannot be used to guess the password, but
    // counted apart: a mistyped current password never slows the next sign-in.
    const source: SignInSource = { account: account.email, address };
    await passwordChangeThrottle.assertAllowed(source);
    if (!(await verifyPassword(account.password_hash, input.currentPassword))) {
      await passwordChangeThrottle.recordFailure(source);
      throw new ApiError('forbidden', 'The current password is incorrect.');
    }
    await store.updateAccount(db, account.id, { password_hash: await hashPassword(input.newPassword) }, clock.now());
    await this.#sessions.endAllForUser(account.id, { keepIdHash });
  }

  /**
   * Starts a password reset. Answers the same whether or not the email has an account, and sends
   * the mail after answering, so neither the answer nor its timing tells which emails exist.
   */
  async requestPasswordReset(emailInput: string, address: string): Promise<void> {
    const { db, clock, passwordReset } = this.#o;
    if (!passwordReset) throw new Error('this service was built without password reset');
    const email = normalizeEmail(emailInput);
    const [perEmail, perAddress] = await Promise.all([
      passwordReset.requests.hit(`password-reset:${hashOpaqueToken(email)}`, resetRequestWindowMs),
      passwordReset.requests.hit(`password-reset-address:${address}`, resetRequestWindowMs),
    ]);
    if (perEmail.count > maxResetRequestsPerEmail || perAddress.count > maxResetRequestsPerAddress) return;
    const account = await store.findAccountByEmail(db, email);
    if (!account || account.active !== 1) return;
    const token = newOpaqueToken();
    const now = clock.now();
    const expiresAt = now + passwordReset.ttlMs;
    await store.insertPasswordReset(db, { id: randomUUID(), account_id: account.id, token_hash: hashOpaqueToken(token), created_at: now, expires_at: expiresAt, used_at: null });
    passwordReset.mailer.send(passwordReset.message(account.email, token, expiresAt)).catch((error: unknown) => passwordReset.onMailFailure(error));
  }

  /** Sets a new password with a reset token (single use) and ends every session of the account. */
  async confirmPasswordReset(input: { token: string; password: string }): Promise<void> {
    const { db, clock } = this.#o;
    const reset = await store.findPasswordResetByTokenHash(db, hashOpaqueToken(input.token));
    if (!reset || reset.used_at !== null || reset.expires_at <= clock.now()) throw invalidToken('password reset');
    const passwordHash = await hashPassword(input.password);
    await db.transaction().execute(async (trx) => {
      const at = clock.now();
      if (!(await store.spendPasswordReset(trx, reset.id, at))) throw invalidToken('password reset');
      await store.updateAccount(trx, reset.account_id, { password_hash: passwordHash }, at);
      await store.spendAllPasswordResets(trx, reset.account_id, at);
    });
    await this.#sessions.endAllForUser(reset.account_id);
  }

  /** Invites an email with a role; the returned token is shown this once, for the admin to pass on. */
  async createInvitation(input: { email: string; role: Role; invitedBy: string }): Promise<InvitationSummary & { token: string }> {
    const { db, clock, invitationTtlMs } = this.#o;
    const email = normalizeEmail(input.email);
    if (await store.findAccountByEmail(db, email)) throw new ApiError('conflict', `${email} has an account already.`);
    const token = newOpaqueToken();
    const now = clock.now();
    const row: InvitationRow = {
      id: randomUUID(),
      email,
      role: input.role,
      token_hash: hashOpaqueToken(token),
      invited_by: input.invitedBy,
      created_at: now,
      expires_at: now + invitationTtlMs,
      accepted_at: null,
      revoked_at: null,
    };
    await store.insertInvitation(db, row);
    return { ...summarize(row, now), token };
  }

  /** Invitations, newest first (at most `limit` when given). */
  async invitations(limit?: number): Promise<InvitationSummary[]> {
    const now = this.#o.clock.now();
    return (await store.listInvitations(this.#o.db, limit)).map((row) => summarize(row, now));
  }

  /** Revokes a pending invitation; 404 when there is no pending invitation with this id. */
  async revokeInvitation(id: string): Promise<void> {
    if (!(await store.revokeInvitation(this.#o.db, id, this.#o.clock.now()))) throw new ApiError('not-found', `No pending invitation with id ${id}.`);
  }

  /**
   * Creates the invited account with the chosen name and password, and signs it in (single use,
   * even under races). The account's email is the invitation's, unless the service lets the
   * invitee give one (`email`).
   */
  async acceptInvitation(input: { token: string; name: string; password: string; email?: string | undefined }): Promise<SignedIn> {
    const { db, clock } = this.#o;
    const invitation = await store.findInvitationByTokenHash(db, hashOpaqueToken(input.token));
    if (!invitation || invitation.accepted_at !== null || invitation.revoked_at !== null || invitation.expires_at <= clock.now()) {
      throw invalidToken('invitation');
    }
    const passwordHash = await hashPassword(input.password);
    const account = newAccount({ email: input.email ?? invitation.email, name: input.name, role: invitation.role, passwordHash, now: clock.now() });
    await db.transaction().execute(async (trx) => {
      if (!(await store.spendInvitation(trx, invitation.id, account.created_at))) throw invalidToken('invitation');
      if (await store.findAccountByEmail(trx, account.email)) throw new ApiError('conflict', `An account for ${account.email} exists already.`);
      await store.insertAccount(trx, account);
    });
    return this.#signIn(account);
  }

  async accounts(): Promise<ManagedAccount[]> {
    return (await store.listAccounts(this.#o.db)).map(managedAccount);
  }

  /**
   * Changes an account's role or active state. Deactivation ends its sessions at once. The last
   * active admin can be neither demoted nor deactivated: nobody could administer the service.
   */
  async changeAccount(id: string, changes: { role?: Role | undefined; active?: boolean | undefined }): Promise<ManagedAccount> {
    const { db, clock } = this.#o;
    const account = await store.findAccountById(db, id);
    if (!account) throw new ApiError('not-found', `No user with id ${id}.`);
    const losesAdmin = account.role === 'admin' && account.active === 1 && (changes.role === 'member' || changes.active === false);
    if (losesAdmin && (await store.countActiveAdmins(db)) <= 1) {
      throw new ApiError('conflict', 'This is the last active admin; make another user admin first.');
    }
    const update: { role?: Role; active?: number } = {};
    if (changes.role !== undefined) update.role = changes.role;
    if (changes.active !== undefined) update.active = changes.active ? 1 : 0;
    await store.updateAccount(db, id, update, clock.now());
    if (changes.active === false) await this.#sessions.endAllForUser(id);
    const updated = await store.findAccountById(db, id);
    if (!updated) throw new ApiError('not-found', `No user with id ${id}.`);
    return managedAccount(updated);
  }

  /** Deletes expired sessions and reset tokens; run periodically. */
  async sweepExpired(): Promise<void> {
    await this.#sessions.deleteExpired();
    await store.deleteExpiredPasswordResets(this.#o.db, this.#o.clock.now());
  }

  async #signIn(account: AccountRow): Promise<SignedIn> {
    return { account: publicAccount(account), session: await this.#sessions.start(account.id) };
  }
}

function alreadySetUp(): ApiError {
  return new ApiError('already-set-up', 'Setup is done: the first admin exists. Sign in, or ask an admin for an invitation.');
}

function publicAccount(row: AccountRow): PublicAccount {
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

function managedAccount(row: AccountRow): ManagedAccount {
  return { ...publicAccount(row), active: row.active === 1, createdAt: row.created_at };
}

function newAccount(input: { email: string; name: string; role: Role; passwordHash: string; now: number }): AccountRow {
  return {
    id: randomUUID(),
    email: normalizeEmail(input.email),
    name: input.name.trim(),
    role: input.role,
    password_hash: input.passwordHash,
    active: 1,
    created_at: input.now,
    updated_at: input.now,
  };
}

function statusOf(row: InvitationRow, now: number): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'pending';
}

function summarize(row: InvitationRow, now: number): InvitationSummary {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: statusOf(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    acceptedAt: row.accepted_at,
  };
}
