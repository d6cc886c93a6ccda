import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { ApiRequestError, apiPost, apiRequest, setCsrfToken } from './api-client.js';
import type { SessionResponse, SessionUser } from './api-types.js';

interface SessionContextValue {
  /** undefined while the first check runs; null when signed out. */
  user: SessionUser | null | undefined;
  signedIn: (session: SessionResponse) => void;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionContextValue>({
  user: undefined,
  signedIn: () => undefined,
  signOut: async () => undefined,
});

/** Holds the signed-in user and the session's CSRF token for the whole app. */
export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);

  useEffect(() => {
    apiRequest<SessionResponse>('/api/v1/auth/session', { redirectOnUnauthorized: false }).then(
      (session) => {
        setCsrfToken(session.csrfToken);
        setUser(session.user);
      },
      (error: unknown) => {
        // Signed out (401) is an ordinary answer here: protected pages send the user to sign in.
        if (!(error instanceof ApiRequestError) || error.status !== 401) console.error(error);
        setUser(null);
      },
    );
  }, []);

  const signedIn = useCallback((session: SessionResponse) => {
    setCsrfToken(session.csrfToken);
    setUser(session.user);
  }, []);

  const signOut = useCallback(async () => {
    try {
      await apiPost('/api/v1/auth/logout', {}, { redirectOnUnauthorized: false });
    } finally {
      setCsrfToken(undefined);
      setUser(null);
    }
  }, []);

  return <SessionContext.Provider value={{ user, signedIn, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  return useContext(SessionContext);
}
