import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { localOperatorSession, memberClient, storedSessionFor, useSession } from "../session.tsx";

/**
 * Email and password: a login session, then the organisation's first project (default when it has
 * one). Beside it, what to do without an account: register (a new organisation, verified by a
 * mailed link), be invited, or, on a local server, open the console on the server's own machine.
 */
export function SignInPage({ localOperatorSignedOut }: { localOperatorSignedOut: boolean }) {
  const { signIn, endedNotice } = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: async () => storedSessionFor((await memberClient("", null).account.login({ email, password })).token),
    onSuccess: signIn,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  return (
    <main className="sign-in" id="main">
      <h1>Sign in to the console</h1>
      {endedNotice && <p className="warning">Your session ended: sign in again.</p>}
      {localOperatorSignedOut && <LocalOperatorReturn onSession={signIn} />}
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
        <ErrorNote error={login.error} />
      </form>
      <section aria-labelledby="no-account">
        <h2 id="no-account">No account?</h2>
        <ul>
          <li>
            <strong>On a local server</strong> (<code>scripts/serve</code>), open <code>http://127.0.0.1:8081/console/</code> in a browser on the server's own
            machine: the console opens as the local operator, with what agents published without a key. It does not through a proxy or from another machine.
          </li>
          <li>
            <strong>To join an organisation</strong>, ask one of its owners or admins to invite your address: the invitation mail's link sets your password.
          </li>
          <li>
            <strong>To start an organisation</strong>, create an account below.
          </li>
        </ul>
        <Registration />
      </section>
    </main>
  );
}

/** After the local operator signed out of this tab: the way back in, on request only. */
function LocalOperatorReturn({ onSession }: { onSession: (session: NonNullable<Awaited<ReturnType<typeof localOperatorSession>>>) => void }) {
  const open = useMutation({
    mutationFn: async () => {
      const session = await localOperatorSession();
      if (session === null) throw new Error("This server no longer gives the local operator's session here: sign in with an account.");
      return session;
    },
    onSuccess: onSession,
  });
  return (
    <p>
      You signed out of the local operator.{" "}
      <button type="button" onClick={() => open.mutate()} disabled={open.isPending}>
        Open as the local operator
      </button>
      <ErrorNote error={open.error} />
    </p>
  );
}

/** A new organisation and its owner; the address is verified by the mailed link before signing in. */
function Registration() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [organization, setOrganization] = useState("");
  const register = useMutation({
    mutationFn: () => memberClient("", null).account.register({ email, password, organization_name: organization }),
  });
  const resend = useMutation({ mutationFn: () => memberClient("", null).account.resendVerification({ email }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate();
  };
  if (register.isSuccess) {
    return (
      <output>
        <p>
          A link to verify <strong>{register.data.email}</strong> is on its way. Open it, then sign in above.
        </p>
        <p>
          A server without a mail server (<code>SMTP_URL</code> unset) writes its mails to its log instead: the link is in the line that names your address.
        </p>
        <button type="button" onClick={() => resend.mutate()} disabled={resend.isPending}>
          Send the link again
        </button>
        {resend.isSuccess && <p>Sent again.</p>}
        <ErrorNote error={resend.error} />
      </output>
    );
  }
  return (
    <form onSubmit={submit} aria-label="Create an account">
      <h3>Create an account</h3>
      <p>This makes a new organisation with you as its owner; a local server's own data stays with its local operator.</p>
      <label>
        Organisation name
        <input required autoComplete="organization" value={organization} onChange={(event) => setOrganization(event.target.value)} />
      </label>
      <label>
        Your email
        <input type="email" autoComplete="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
      </label>
      <label>
        New password
        <input type="password" autoComplete="new-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
      </label>
      <button type="submit" disabled={register.isPending}>
        {register.isPending ? "Creating…" : "Create account"}
      </button>
      <ErrorNote error={register.error} />
    </form>
  );
}
