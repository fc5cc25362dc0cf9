import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProcessServices, exposureReceiptDigest, issueExposureReceipt, loadSettings, verifyExposureReceipt } from "@als/core";
import { LOCAL_SCOPE, openDatabase } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let playbookId: number;
let otherPlaybookId: number;

beforeAll(async () => {
  svc = await startTestService();
  [playbookId = 0, otherPlaybookId = 0] = await addUserPlaybooks(svc, [
    { user_id: "eve", content: "Confirm the shipping address before dispatch" },
    { user_id: "eve", content: "Mention the loyalty programme" },
  ]);
});
afterAll(() => svc.close());

const served = (session_id: string | undefined, user_playbook_id: number) => ({ session_id, user_playbook_id });

describe("exposure receipts", () => {
  test("each user playbook /api/search returns carries a receipt bound to its session and playbook", async () => {
    const response = await svc.call("POST", "/api/search", { query: "shipping address", user_id: "eve", session_id: "s-1", top_k: 1 });
    const [playbook] = response.body.user_playbooks;
    expect(playbook.user_playbook_id).toBe(playbookId);
    const receipt: string = playbook.exposure_receipt;
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, receipt, served("s-1", playbookId))).toBe(true);
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, receipt, served("s-2", playbookId))).toBe(false);
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, receipt, served(undefined, playbookId))).toBe(false);
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, receipt, served("s-1", otherPlaybookId))).toBe(false);
    expect(await verifyExposureReceipt(svc.deps, { ...LOCAL_SCOPE, projectId: "other" }, receipt, served("s-1", playbookId))).toBe(false);
  });

  test("a tampered receipt fails", async () => {
    const receipt = await issueExposureReceipt(svc.deps, LOCAL_SCOPE, served("s-1", playbookId));
    const [version, issuedAt, mac] = receipt.split(".");
    const flipped = mac!.startsWith("A") ? `B${mac!.slice(1)}` : `A${mac!.slice(1)}`;
    for (const tampered of [`${version}.${issuedAt}.${flipped}`, `${version}.${Number(issuedAt) + 1}.${mac}`, `${receipt}x`, "", "r1..", "garbage"]) {
      expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, tampered, served("s-1", playbookId))).toBe(false);
    }
  });

  test("without a session the receipt is bound to no session", async () => {
    const response = await svc.call("POST", "/api/search", { query: "loyalty", user_id: "eve", top_k: 1, entity_types: ["user_playbooks"] });
    const [playbook] = response.body.user_playbooks;
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, playbook.exposure_receipt, served(undefined, playbook.user_playbook_id))).toBe(true);
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, playbook.exposure_receipt, served("s-1", playbook.user_playbook_id))).toBe(false);
  });

  test("a receipt of another deployment's secret fails", async () => {
    const configured = { ...svc.deps, search: { exposureReceiptSecret: "a-configured-secret-of-at-least-32-chars" } };
    const receipt = await issueExposureReceipt(configured, LOCAL_SCOPE, served("s-1", playbookId));
    expect(await verifyExposureReceipt(configured, LOCAL_SCOPE, receipt, served("s-1", playbookId))).toBe(true);
    expect(await verifyExposureReceipt(svc.deps, LOCAL_SCOPE, receipt, served("s-1", playbookId))).toBe(false);
  });

  test("stored interactions keep the SHA-256 digest of a receipt", async () => {
    const receipt = await issueExposureReceipt(svc.deps, LOCAL_SCOPE, served("s-1", playbookId));
    const digest = exposureReceiptDigest(receipt);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).toBe(new Bun.CryptoHasher("sha256").update(receipt).digest("hex"));
  });

  // Reopening PGlite's files is a restart of the whole store; PostgreSQL outlives API processes anyway.
  test.if(testMode === "embedded")("the database keeps the secret: receipts survive a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "receipts-"));
    try {
      const first = await openDatabase({ kind: "pglite", dataDir });
      const receipt = await issueExposureReceipt(
        { services: createProcessServices(first, sharedProcessActivity()), now: () => 1000 },
        LOCAL_SCOPE,
        served("s-1", 1),
      );
      await first.close();
      const second = await openDatabase({ kind: "pglite", dataDir });
      expect(await verifyExposureReceipt({ services: createProcessServices(second, sharedProcessActivity()) }, LOCAL_SCOPE, receipt, served("s-1", 1))).toBe(
        true,
      );
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("search settings", () => {
  test("the search deadline is five seconds unless SERVICE_SEARCH_DEADLINE_ENABLED is false", () => {
    expect(loadSettings({}).search.deadlineMs).toBe(5000);
    expect(loadSettings({ SERVICE_SEARCH_DEADLINE_ENABLED: "true" }).search.deadlineMs).toBe(5000);
    expect(loadSettings({ SERVICE_SEARCH_DEADLINE_ENABLED: "false" }).search.deadlineMs).toBeNull();
    expect(() => loadSettings({ SERVICE_SEARCH_DEADLINE_ENABLED: "off" })).toThrow("SERVICE_SEARCH_DEADLINE_ENABLED");
  });

  test("EXPOSURE_RECEIPT_SECRET is optional (the database holds one) and at least 32 characters", () => {
    expect(loadSettings({}).search.exposureReceiptSecret).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: "postgres://db/als" }).search.exposureReceiptSecret).toBeUndefined();
    expect(() => loadSettings({ DATABASE_URL: "postgres://db/als", EXPOSURE_RECEIPT_SECRET: "short" })).toThrow("EXPOSURE_RECEIPT_SECRET");
    const secret = "s".repeat(32);
    expect(loadSettings({ DATABASE_URL: "postgres://db/als", EXPOSURE_RECEIPT_SECRET: secret }).search.exposureReceiptSecret).toBe(secret);
  });
});
