/** What an account may do: an admin manages accounts and settings, a member uses the service. */
export type Role = 'admin' | 'member';

/** A row of `accounts`: an operator who signs in with email and password (argon2id hash). */
export interface AccountRow {
  id: string;
  /** Trimmed and lower case; unique. */
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  /** 1 active, 0 deactivated (cannot sign in; sessions ended). */
  active: number;
  created_at: number;
  updated_at: number;
}

/**
 * A row of `account_sessions`: the session id is stored only as its hash. Columns: `id_hash text
 * primary key, user_id text not null, created_at bigint, last_seen_at bigint, idle_expires_at
 * bigint, absolute_expires_at bigint` (all not null), indexed on `user_id`.
 */
export interface SessionRow {
  id_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  idle_expires_at: number;
  absolute_expires_at: number;
}

/** A row of `account_invitations`: the token is stored only as its hash. */
export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
}

/** A row of `account_password_resets`: the token is stored only as its hash. */
export interface PasswordResetRow {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** The one row of `account_setup`, claimed by the first-run setup (its key is always 1). */
export interface AccountSetupRow {
  id: number;
  account_id: string;
  completed_at: number;
}

/** The accounts module's tables, created by {@link accountsTablesMigration}. */
export interface AccountsTables {
  accounts: AccountRow;
  account_sessions: SessionRow;
  account_invitations: InvitationRow;
  account_password_resets: PasswordResetRow;
  account_setup: AccountSetupRow;
}
