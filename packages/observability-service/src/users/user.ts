import type { Role, UserRow } from './users-store.js';

/** A user as the API shows them: never the password hash. */
export interface PublicUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export function publicUser(row: UserRow): PublicUser {
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

/** Emails compare case-insensitively and without surrounding spaces; stored in this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
