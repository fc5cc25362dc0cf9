import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

const RECEIPT_VERSION = "r1";
const STORED_SECRET_NAME = "exposure_receipt_secret";

/** What a receipt vouches for: this user playbook was served to this session of this project at `issuedAt`. */
interface ReceiptClaims {
  org: string;
  project: string;
  session: string;
  userPlaybookId: number;
  issuedAt: number;
}

/**
 * The configured secret, or the one the database holds, made on first use: every process sharing
 * the database signs alike, and receipts stay verifiable across restarts.
 */
function receiptSecret(deps: Pick<CoreDeps, "services" | "search">): Promise<string> {
  const configured = deps.search?.exposureReceiptSecret;
  return configured ? Promise.resolve(configured) : deps.services.secrets.get(STORED_SECRET_NAME);
}

function signature(secret: string, claims: ReceiptClaims): Buffer {
  // A JSON array cannot be re-split differently, whatever characters the ids hold.
  const message = JSON.stringify([RECEIPT_VERSION, claims.org, claims.project, claims.session, claims.userPlaybookId, claims.issuedAt]);
  return createHmac("sha256", secret).update(message).digest();
}

/** An opaque receipt that `userPlaybookId` was served to `sessionId` (or outside any session). */
export async function issueExposureReceipt(
  deps: Pick<CoreDeps, "services" | "search" | "now">,
  scope: Scope,
  served: { session_id: string | undefined; user_playbook_id: number },
): Promise<string> {
  const claims: ReceiptClaims = {
    org: scope.orgId,
    project: scope.projectId,
    session: served.session_id ?? "",
    userPlaybookId: served.user_playbook_id,
    issuedAt: deps.now(),
  };
  const mac = signature(await receiptSecret(deps), claims);
  return `${RECEIPT_VERSION}.${claims.issuedAt}.${mac.toString("base64url")}`;
}

/** True when `receipt` was issued by this deployment for this project, session and user playbook. */
export async function verifyExposureReceipt(
  deps: Pick<CoreDeps, "services" | "search">,
  scope: Scope,
  receipt: string,
  expected: { session_id: string | undefined; user_playbook_id: number },
): Promise<boolean> {
  const match = /^r1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(receipt);
  if (!match) return false;
  const claims: ReceiptClaims = {
    org: scope.orgId,
    project: scope.projectId,
    session: expected.session_id ?? "",
    userPlaybookId: expected.user_playbook_id,
    issuedAt: Number(match[1]),
  };
  const given = Buffer.from(match[2]!, "base64url");
  const wanted = signature(await receiptSecret(deps), claims);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** What stored interactions keep of a receipt: its SHA-256, hex. */
export function exposureReceiptDigest(receipt: string): string {
  return createHash("sha256").update(receipt).digest("hex");
}
