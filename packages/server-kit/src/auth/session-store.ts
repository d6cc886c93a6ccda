/** A browser session as stored: the id itself is never kept, only its hash. */
export interface SessionRecord {
  idHash: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  /** Ends the session when no request comes before it; moved forward as requests arrive. */
  idleExpiresAt: number;
  /** Ends the session however active it is. */
  absoluteExpiresAt: number;
}

/** Where sessions live; {@link KyselySessionStore} keeps them in a service's own table. */
export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  find(idHash: string): Promise<SessionRecord | undefined>;
  touch(idHash: string, lastSeenAt: number, idleExpiresAt: number): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Ends a user's sessions, optionally keeping one; answers how many ended. */
  deleteForUser(userId: string, keepIdHash?: string): Promise<number>;
  deleteExpired(now: number): Promise<number>;
}
