import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Counter } from 'prom-client';
import {
  ApiError,
  hashOpaqueToken,
  hashPassword,
  newOpaqueToken,
  passwordNeedsRehash,
  verifyPassword,
  verifyPasswordAgainstNothing,
  type AttemptCounter,
  type Clock,
  type LoginThrottle,
  type Mailer,
  type SignInSource,
  type SessionManager,
  type StartedSession,
} from '@playstack/server-kit';
import { claimSetting } from '../admin/settings-store.js';
import { findInvitationByTokenHash, spendInvitation } from '../users/invitations-store.js';
import { normalizeEmail, publicUser, type PublicUser } from '../users/user.js';
import { countUsers, findUserByEmail, findUserById, insertUser, updateUser, type Role, type UserRow } from '../users/users-store.js';
import { deleteExpiredPasswordResets, findPasswordResetByTokenHash, insertPasswordReset, spendAllPasswordResets, spendPasswordReset } from './password-reset-store.js';

export interface AuthServiceOptions {
  db: Kysely<any>;
  clock: Clock;
  sessions: SessionManager;
  loginThrottle: LoginThrottle;
  /** Failed password changes: counted apart, so they never spend the sign-in budget. */
  passwordChangeThrottle: LoginThrottle;
  /** Counts reset requests per email, so the endpoint cannot be used to flood a mailbox. */
  resetRequests: AttemptCounter;
  mailer: Mailer;
  logger: FastifyBaseLogger;
  passwordResetTtlMs: number;
  /** Base of the link in reset mail, when the dashboard's public URL is known. */
  publicUrl: string | undefined;
  /** Counts sign-in attempts by outcome (`success`, `failure`, `throttled`), for alerting on attacks. */
  signIns: Counter<'outcome'>;
}

/** A user just signed in, and their new session. */
export interface SignedIn {
  user: PublicUser;
  session: StartedSession;
}

const setupSetting = 'setup-completed';
const resetRequestWindowMs = 60 * 60_000;
const maxResetRequestsPerEmail = 3;
const maxResetRequestsPerAddress = 20;

const invalidCredentials = () => new ApiError('invalid-credentials', 'The email or password is incorrect.');
const invalidToken = (what: string) => new ApiError('invalid-grant', `The ${what} token is unknown, expired or already used.`);

/** Setup, sign-in, password change and reset, invitation acceptance: everything but HTTP. */
export class AuthService {
  readonly #o: AuthServiceOptions;

  constructor(options: AuthServiceOptions) {
    this.#o = options;
  }

  /** Creates the first admin and signs them in; 409 `already-set-up` once anyone has done so. */
  async setup(input: { email: string; password: string; name: string }): Promise<SignedIn> {
    const { db, clock } = this.#o;
    if ((await countUsers(db)) > 0) throw alreadySetUp();
    const passwordHash = await hashPassword(input.password);
    const now = clock.now();
    const user = newUser({ email: input.email, name: input.name, role: 'admin', passwordHash, now });
    await db.transaction().execute(async (trx) => {
      // The claim is a unique row: of two racing setups one inserts it, the other gets 409,
      // and setup stays closed even if every user were later deleted.
      if (!(await claimSetting(trx, setupSetting, user.id, now))) throw alreadySetUp();
      await insertUser(trx, user);
    });
    return this.#signIn(user);
  }

  /**
   * Signs in with email and password; the same answer for an unknown email and a wrong password.
   * `device` is the trusted-device id the browser's cookie holds for this email, if any.
   */
  async login(input: { email: string; password: string }, from: { address: string; device?: string | undefined }): Promise<SignedIn> {
    const email = normalizeEmail(input.email);
    const { loginThrottle, signIns } = this.#o;
    const source: SignInSource = { account: email, ...from };
    try {
      await loginThrottle.assertAllowed(source);
    } catch (error) {
      signIns.inc({ outcome: 'throttled' });
      throw error;
    }
    const user = await findUserByEmail(this.#o.db, email);
    const passwordOk = user ? await verifyPassword(user.password_hash, input.password) : await verifyPasswordAgainstNothing(input.password);
    if (!user || !passwordOk || user.active !== 1) {
      signIns.inc({ outcome: 'failure' });
      await loginThrottle.recordFailure(source);
      throw invalidCredentials();
    }
    signIns.inc({ outcome: 'success' });
    await loginThrottle.recordSuccess(source);
    // Hashes made under older, weaker parameters are upgraded while the password is at hand.
    if (passwordNeedsRehash(user.password_hash)) {
      await updateUser(this.#o.db, user.id, { password_hash: await hashPassword(input.password) }, this.#o.clock.now());
    }
    return this.#signIn(user);
  }

  /** The signed-in user of a session cookie, or undefined (no session, expired, or user deactivated). */
  async resume(sessionId: string): Promise<{ user: PublicUser; idHash: string; csrfToken: string } | undefined> {
    const session = await this.#o.sessions.resume(sessionId);
    if (!session) return undefined;
    const user = await findUserById(this.#o.db, session.userId);
    if (!user || user.active !== 1) return undefined;
    return { user: publicUser(user), idHash: session.idHash, csrfToken: session.csrfToken };
  }

  async logout(sessionId: string): Promise<void> {
    await this.#o.sessions.end(sessionId);
  }

  /**
   * Changes a password given the current one, and ends the user's other sessions (a thief
   * holding one loses it); the session in use stays.
   */
  async changePassword(userId: string, keepIdHash: string, input: { currentPassword: string; newPassword: string }, address: string): Promise<void> {
    const { db, clock, passwordChangeThrottle, sessions } = this.#o;
    const user = await findUserById(db, userId);
    if (!user) throw new ApiError('unauthorized', 'Sign in first.');
    // Throttled like sign-in, so a hijacked session cannot be used to guess the password, but
    // counted apart: a mistyped current password never slows the next sign-in.
    const source: SignInSource = { account: user.email, address };
    await passwordChangeThrottle.assertAllowed(source);
    if (!(await verifyPassword(user.password_hash, input.currentPassword))) {
      await passwordChangeThrottle.recordFailure(source);
      throw new ApiError('forbidden', 'The current password is incorrect.');
    }
    await updateUser(db, user.id, { password_hash: await hashPassword(input.newPassword) }, clock.now());
    await sessions.endAllForUser(user.id, { keepIdHash });
  }

  /**
   * Starts a password reset. Answers the same whether or not the email has an account, and sends
   * the mail after answering, so neither the answer nor its timing tells which emails exist.
   */
  async requestPasswordReset(emailInput: string, address: string): Promise<void> {
    const email = normalizeEmail(emailInput);
    const { db, clock, resetRequests } = this.#o;
    const [perEmail, perAddress] = await Promise.all([
      resetRequests.hit(`password-reset:${hashOpaqueToken(email)}`, resetRequestWindowMs),
      resetRequests.hit(`password-reset-address:${address}`, resetRequestWindowMs),
    ]);
    if (perEmail.count > maxResetRequestsPerEmail || perAddress.count > maxResetRequestsPerAddress) return;
    const user = await findUserByEmail(db, email);
    if (!user || user.active !== 1) return;
    const token = newOpaqueToken();
    const now = clock.now();
    const expiresAt = now + this.#o.passwordResetTtlMs;
    await insertPasswordReset(db, { id: randomUUID(), user_id: user.id, token_hash: hashOpaqueToken(token), created_at: now, expires_at: expiresAt, used_at: null });
    this.#o.mailer.send(resetMail(user, token, expiresAt, this.#o.publicUrl)).catch((error: unknown) => {
      this.#o.logger.error({ err: error }, 'could not send the password reset mail');
    });
  }

  /** Sets a new password with a reset token (single use) and ends every session of the user. */
  async confirmPasswordReset(input: { token: string; password: string }): Promise<void> {
    const { db, clock, sessions } = this.#o;
    const reset = await findPasswordResetByTokenHash(db, hashOpaqueToken(input.token));
    const now = clock.now();
    if (!reset || reset.used_at !== null || reset.expires_at <= now) throw invalidToken('password reset');
    const passwordHash = await hashPassword(input.password);
    await db.transaction().execute(async (trx) => {
      const at = clock.now();
      if (!(await spendPasswordReset(trx, reset.id, at))) throw invalidToken('password reset');
      await updateUser(trx, reset.user_id, { password_hash: passwordHash }, at);
      await spendAllPasswordResets(trx, reset.user_id, at);
    });
    await sessions.endAllForUser(reset.user_id);
  }

  /** Creates the invited account with the chosen name and password, and signs it in. */
  async acceptInvitation(input: { token: string; name: string; password: string }): Promise<SignedIn> {
    const { db, clock } = this.#o;
    const invitation = await findInvitationByTokenHash(db, hashOpaqueToken(input.token));
    const now = clock.now();
    if (!invitation || invitation.accepted_at !== null || invitation.revoked_at !== null || invitation.expires_at <= now) {
      throw invalidToken('invitation');
    }
    const passwordHash = await hashPassword(input.password);
    const user = newUser({ email: invitation.email, name: input.name, role: invitation.role, passwordHash, now: clock.now() });
    await db.transaction().execute(async (trx) => {
      if (!(await spendInvitation(trx, invitation.id, user.created_at))) throw invalidToken('invitation');
      if (await findUserByEmail(trx, user.email)) throw new ApiError('conflict', `An account for ${user.email} exists already.`);
      await insertUser(trx, user);
    });
    return this.#signIn(user);
  }

  /** Deletes expired sessions and reset tokens; run periodically. */
  async sweepExpired(): Promise<void> {
    await this.#o.sessions.deleteExpired();
    await deleteExpiredPasswordResets(this.#o.db, this.#o.clock.now());
  }

  async #signIn(user: UserRow): Promise<SignedIn> {
    return { user: publicUser(user), session: await this.#o.sessions.start(user.id) };
  }
}

function alreadySetUp(): ApiError {
  return new ApiError('already-set-up', 'Setup is done: the first admin exists. Sign in, or ask an admin for an invitation.');
}

function newUser(input: { email: string; name: string; role: Role; passwordHash: string; now: number }): UserRow {
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

function resetMail(user: UserRow, token: string, expiresAt: number, publicUrl: string | undefined) {
  const link = publicUrl ? `\n\n${publicUrl.replace(/\/+$/, '')}/reset-password#token=${token}` : '';
  return {
    to: user.email,
    subject: 'Reset your observability dashboard password',
    text:
      `Someone (hopefully you) asked to reset the password of ${user.email}.${link}\n\n` +
      `Reset token: ${token}\n\nIt works once, until ${new Date(expiresAt).toISOString()}. ` +
      'If you did not ask for this, ignore this message: your password stays as it is.',
  };
}
