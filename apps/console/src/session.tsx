import { type Client, createClient } from "@als/client";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";

/** What a signed-in member's console remembers across reloads of the tab (never the password). */
export interface StoredSession {
  token: string;
  email: string;
  projectId: string;
}

const STORAGE_KEY = "als-console-session";

/**
 * The typed client acting as the member: the session token as the bearer, and the selected project in
 * X-Service-Project, which is how a login session chooses among its organisation's projects.
 */
export function memberClient(token: string, projectId: string | null): Client {
  return createClient({
    baseUrl: window.location.origin,
    apiKey: token,
    // A console action is one click: a failure is shown at once rather than retried behind the member's back.
    retries: 0,
    fetch: (url, init) => {
      const headers = new Headers(init.headers);
      if (projectId !== null) headers.set("x-service-project", projectId);
      return fetch(url, { ...init, headers });
    },
  });
}

interface SessionState {
  session: StoredSession | null;
  client: Client | null;
  signIn(session: StoredSession): void;
  switchProject(projectId: string): void;
  signOut(): void;
}

const SessionContext = createContext<SessionState | null>(null);

function readStored(): StoredSession | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as StoredSession) : null;
  } catch {
    return null;
  }
}

/** Keeps the session in sessionStorage: it ends with the tab, and no other site can read it. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<StoredSession | null>(readStored);
  const save = useCallback((next: StoredSession | null) => {
    if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    else sessionStorage.removeItem(STORAGE_KEY);
    setSession(next);
  }, []);
  const value = useMemo<SessionState>(
    () => ({
      session,
      client: session ? memberClient(session.token, session.projectId) : null,
      signIn: save,
      switchProject: (projectId) => session && save({ ...session, projectId }),
      signOut: () => save(null),
    }),
    [session, save],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession outside SessionProvider");
  return state;
}

/** The signed-in member's client and project: pages below the shell only render with a session. */
export function useMember(): { client: Client; session: StoredSession } {
  const { client, session } = useSession();
  if (!client || !session) throw new Error("useMember without a session");
  return { client, session };
}
