import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { memberClient, useSession } from "../session.tsx";

/** Email and password: a login session, then the organisation's first project (default when it has one). */
export function SignInPage() {
  const { signIn, endedNotice } = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: async () => {
      const session = await memberClient("", null).account.login({ email, password });
      const me = await memberClient(session.token, null).account.me();
      const projectId = me.projects.some((project) => project.project_id === "default") ? "default" : (me.projects[0]?.project_id ?? "default");
      return { token: session.token, email: me.email, projectId };
    },
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
      <form onSubmit={submit}>
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
    </main>
  );
}
