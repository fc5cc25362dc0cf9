import { type Client, createClient } from "@als/client";
import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";

/** What a signed-in member's console remembers across reloads of the tab (never the password). */
export interface StoredSession {
  token: string;
  email: string;
  projectId: string;
}

const STORAGE_KEY = "als-console-session";
/** Dispatched on window when the service answers 401 to the member's session. */
export const SESSION_ENDED = "als-console-session-ended";

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
  /** Set when the service ended the session, for the sign-in page to say so. */
  endedNotice: boolean;
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
  const [endedNotice, setEndedNotice] = useState(false);
  const queries = useQueryClient();
  const save = useCallback(
    (next: StoredSession | null) => {
      // Cached reads belong to the member who made them: the next one to sign in in this tab starts empty.
      if (next === null || next.token !== readStored()?.token) queries.clear();
      if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
      else sessionStorage.removeItem(STORAGE_KEY);
      setSession(next);
    },
    [queries],
  );
  useEffect(() => {
    const ended = () => {
      // Signing in answers 401 to a wrong password: that is no session ending.
      if (readStored() === null) return;
      save(null);
      setEndedNotice(true);
    };
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, [save]);
  const value = useMemo<SessionState>(
    () => ({
      session,
      endedNotice,
      client: session ? memberClient(session.token, session.projectId) : null,
      signIn: (next) => {
        setEndedNotice(false);
        save(next);
      },
      switchProject: (projectId) => session && save({ ...session, projectId }),
      signOut: () => save(null),
    }),
    [session, endedNotice, save],
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
