import { useEffect, useState } from "react";

/** The console's pages, in the order of the navigation. */
export const PAGES = [
  { id: "onboarding", title: "Onboarding" },
  { id: "learnings", title: "Learnings" },
  { id: "approvals", title: "Approval queue" },
  { id: "questions", title: "Questions" },
  { id: "evaluation", title: "Evaluation" },
  { id: "api-keys", title: "API keys" },
  { id: "erase", title: "Erase a user" },
] as const;
export type PageId = (typeof PAGES)[number]["id"];

const isPage = (value: string): value is PageId => PAGES.some((page) => page.id === value);

function pageOfHash(): PageId {
  const id = window.location.hash.replace(/^#\/?/, "");
  return isPage(id) ? id : "onboarding";
}

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
