import { type Client, ClientError, createClient } from "@als/client";
import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";

/** What a signed-in member's console remembers across reloads of the tab (never the password). */
export interface StoredSession {
  token: string;
  email: string;
  projectId: string;
  /** The local organisation's operator, which a local server gives a browser on its own machine. */
  localOperator?: boolean;
}

const STORAGE_KEY = "als-console-session";
/** Set when the local operator signed out of this tab: the console then waits to be asked again. */
const LOCAL_DECLINED_KEY = "als-console-local-declined";
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

/** The session as the console keeps it: the member's address and the project to open (`default` when the organisation has one). */
export async function storedSessionFor(token: string, localOperator = false): Promise<StoredSession> {
  const me = await memberClient(token, null).account.me();
  const projectId = me.projects.some((project) => project.project_id === "default") ? "default" : (me.projects[0]?.project_id ?? "default");
  return { token, email: me.email, projectId, ...(localOperator && { localOperator }) };
}

/**
 * The local operator's session, when the server gives one here: a local server (AUTH_MODE=local)
 * reached straight from its own machine. Null when it refuses (hosted, another machine, a proxy).
 */
export async function localOperatorSession(): Promise<StoredSession | null> {
  try {
    const { token } = await memberClient("", null).account.localSession();
    return await storedSessionFor(token, true);
  } catch (error) {
    if (error instanceof ClientError && error.status === 403) return null;
    throw error;
  }
}

/** Whether the local operator signed out of this tab, so the console does not open for them again unasked. */
export const localOperatorDeclined = () => sessionStorage.getItem(LOCAL_DECLINED_KEY) !== null;

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
        sessionStorage.removeItem(LOCAL_DECLINED_KEY);
        save(next);
      },
      switchProject: (projectId) => session && save({ ...session, projectId }),
      signOut: () => {
        if (session?.localOperator) sessionStorage.setItem(LOCAL_DECLINED_KEY, "1");
        save(null);
      },
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
