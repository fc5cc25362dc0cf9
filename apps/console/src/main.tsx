import { ClientError } from "@als/client";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import { SESSION_ENDED, SessionProvider } from "./session.tsx";
import "./styles.css";

/** A 401 anywhere means the session ended (expired, logged out elsewhere, password changed): back to sign-in. */
const endSessionOn401 = (error: unknown) => {
  if (error instanceof ClientError && error.status === 401) window.dispatchEvent(new Event(SESSION_ENDED));
};

// Reads are fresh for a few seconds: the console is for watching work that moves.
const queries = new QueryClient({
  queryCache: new QueryCache({ onError: endSessionOn401 }),
  mutationCache: new MutationCache({ onError: endSessionOn401 }),
  defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
