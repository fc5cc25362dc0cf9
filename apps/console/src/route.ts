import { useEffect, useState } from "react";

/** The console's pages, in the order of the navigation. */
export const PAGES = [
  { id: "onboarding", title: "Onboarding" },
  { id: "conversations", title: "Conversations" },
  { id: "learnings", title: "Learnings" },
  { id: "approvals", title: "Approval queue" },
  { id: "questions", title: "Questions" },
  { id: "evaluation", title: "Evaluation" },
  { id: "data-sources", title: "Data sources" },
  { id: "status", title: "Status" },
  { id: "api-keys", title: "API keys" },
  { id: "erase", title: "Erase a user" },
] as const;
export type PageId = (typeof PAGES)[number]["id"];

const isPage = (value: string): value is PageId => PAGES.some((page) => page.id === value);

function pageOfHash(): PageId {
  const id = window.location.hash.replace(/^#\/?/, "").split("?")[0]!;
  return isPage(id) ? id : "onboarding";
}

/** A link to a page with what it should show first (#/learnings?user_id=ana): the page reads it with `routeParams`. */
export function pageLink(page: PageId, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return query ? `#/${page}?${query}` : `#/${page}`;
}

/** The parameters of the URL's hash, read once when a page opens. */
export const routeParams = () => new URLSearchParams(window.location.hash.split("?")[1] ?? "");

/** The page named by the URL's hash (#/learnings): links work without the server knowing the console's pages. */
export function useRoute(): PageId {
  const [page, setPage] = useState<PageId>(pageOfHash);
  useEffect(() => {
    const changed = () => setPage(pageOfHash());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return page;
}
