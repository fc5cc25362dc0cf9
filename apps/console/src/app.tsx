import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { ApiKeysPage } from "./pages/api-keys.tsx";
import { ApprovalsPage } from "./pages/approvals.tsx";
import { ConversationsPage } from "./pages/conversations.tsx";
import { DataSourcesPage } from "./pages/data-sources.tsx";
import { ErasePage } from "./pages/erase.tsx";
import { LearningsPage } from "./pages/learnings.tsx";
import { OnboardingPage } from "./pages/onboarding.tsx";
import { QuestionsPage } from "./pages/questions.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { PAGES, type PageId, useRoute } from "./route.ts";
import { localOperatorDeclined, localOperatorSession, useMember, useSession } from "./session.tsx";

// The charting library is most of the bundle: it loads when a page with charts is first opened.
const EvaluationPage = lazy(() => import("./pages/evaluation.tsx").then((module) => ({ default: module.EvaluationPage })));
const StatusPage = lazy(() => import("./pages/status.tsx").then((module) => ({ default: module.StatusPage })));

const PAGE_COMPONENTS: Record<PageId, React.ComponentType> = {
  onboarding: OnboardingPage,
  conversations: ConversationsPage,
  learnings: LearningsPage,
  approvals: ApprovalsPage,
  questions: QuestionsPage,
  evaluation: EvaluationPage,
  "data-sources": DataSourcesPage,
  status: StatusPage,
  "api-keys": ApiKeysPage,
  erase: ErasePage,
};

export function App() {
  const { session } = useSession();
  return session ? <Shell /> : <SignedOut />;
}

/**
 * Without a session, a local server's console opens as its operator when the server gives that
 * session here (unless the operator signed out of this tab); otherwise it is the sign-in page.
 */
function SignedOut() {
  const { signIn } = useSession();
  const [declined] = useState(localOperatorDeclined);
  const local = useQuery({ queryKey: ["local-operator-session"], queryFn: localOperatorSession, enabled: !declined, gcTime: 0 });
  useEffect(() => {
    if (local.data) signIn(local.data);
  }, [local.data, signIn]);
  if (!declined && (local.isPending || local.data)) {
    return (
      <main className="sign-in" id="main">
        <output>Opening the console…</output>
      </main>
    );
  }
  return <SignInPage localOperatorSignedOut={declined} />;
}

/** The signed-in console: navigation, the project switch, and the page of the URL. */
function Shell() {
  const { client, session } = useMember();
  const { signOut, switchProject } = useSession();
  const page = useRoute();
  const me = useQuery({ queryKey: ["me", session.token], queryFn: () => client.account.me() });
  const Page = PAGE_COMPONENTS[page];
  // After a move to another page, focus goes to its content, so a screen reader reads the new page
  // and the next Tab starts there; the first page shown keeps the browser's own focus.
  const shown = useRef(page);
  useEffect(() => {
    if (shown.current === page) return;
    shown.current = page;
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [page]);

  const leave = async () => {
    // The session ends on the server too, not only in this tab; a failure still forgets it here.
    await client.account.logout().catch(() => undefined);
    signOut();
  };

  return (
    <div className="shell">
      {/* A button, not a link to #main: the URL's hash names the page, and following #main would leave it. */}
      <button type="button" className="skip" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <header className="top">
        <span className="brand">Agent learning console</span>
        <label className="project">
          Project
          <select value={session.projectId} onChange={(event) => switchProject(event.target.value)}>
            {(me.data?.projects ?? [{ project_id: session.projectId, name: session.projectId }]).map((project) => (
              <option key={project.project_id} value={project.project_id}>
                {project.name === project.project_id ? project.project_id : `${project.name} (${project.project_id})`}
              </option>
            ))}
          </select>
        </label>
        <span className="who">
          {session.localOperator ? "Local operator" : (me.data?.email ?? session.email)}
          {me.data && ` · ${me.data.organization_name}`}
        </span>
        <button type="button" onClick={leave}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console pages" className="pages">
        <ul>
          {PAGES.map((each) => (
            <li key={each.id}>
              <a href={`#/${each.id}`} aria-current={each.id === page ? "page" : undefined}>
                {each.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {/* A page is keyed by project: switching shows the other project's data, never a mix. */}
        <Suspense fallback={<p>Loading…</p>}>
          <Page key={session.projectId} />
        </Suspense>
      </main>
    </div>
  );
}
