import { renameSync, rmSync } from "node:fs";
import { ClientError, createClient, openEndpointStream } from "@als/client";
import { CliError } from "./cli-error.ts";
import { ExportRowCounter } from "./count-export-rows.ts";
import { ProgressBar, type ProgressOutput } from "./progress-bar.ts";

export interface ExportOptions {
  url: string;
  userId: string;
  out: string;
  /** An admin or owner of an organisation holding the governance entitlement. */
  email: string;
  password: string;
  output: ProgressOutput;
}

export interface ExportSummary {
  path: string;
  bytes: number;
  rows: number;
  seconds: number;
}

/**
 * Writes the governance export of a user (POST /api/governance/export-user) to a file as it
 * streams, with the rows written against the bundle's own counts. Export accepts only a governance
 * session: this logs in with the member's email and password, opens one with the password again,
 * and logs out at the end (which ends the governance session too). The bundle is written beside
 * `out` and renamed onto it when complete, so an interrupted export never leaves half a bundle there.
 */
export async function exportUserBundle(options: ExportOptions): Promise<ExportSummary> {
  const started = performance.now();
  const anonymous = createClient({ baseUrl: options.url, retries: 0 });
  const session = await answerOrExplain(anonymous.account.login({ email: options.email, password: options.password }), "logging in with --email");
  const member = createClient({ baseUrl: options.url, apiKey: session.token, retries: 0 });
  const partial = `${options.out}.partial`;
  try {
    const governance = await answerOrExplain(
      member.account.createGovernanceSession({ password: options.password }),
      "opening a governance session (an admin or owner of an organisation holding the governance entitlement)",
    );
    const stream = await answerOrExplain(
      openEndpointStream({ baseUrl: options.url, apiKey: governance.token }, "governance", "exportUser", {
        user_id: options.userId,
        request_id: `als-export-${crypto.randomUUID()}`,
      }),
      "exporting",
    );
    const counter = new ExportRowCounter();
    // Drawn once the bundle's head says how many rows follow.
    let progress: ProgressBar | null = null;
    const writer = Bun.file(partial).writer();
    const decoder = new TextDecoder();
    let bytes = 0;
    try {
      for await (const chunk of stream) {
        writer.write(chunk);
        bytes += chunk.length;
        const before = counter.rows;
        counter.feed(decoder.decode(chunk, { stream: true }));
        if (progress === null && counter.total !== null) progress = new ProgressBar(options.output, "export", "rows", counter.total, before);
        progress?.advance(counter.rows - before);
      }
      await writer.end();
    } catch (error) {
      await Promise.resolve(writer.end()).catch(() => {});
      rmSync(partial, { force: true });
      throw new CliError(
        `the export stopped after ${bytes} bytes (${error instanceof Error ? error.message : String(error)}); nothing was written to ${options.out}`,
      );
    }
    progress?.finish();
    renameSync(partial, options.out);
    return { path: options.out, bytes, rows: counter.rows, seconds: (performance.now() - started) / 1000 };
  } finally {
    await member.account.logout().catch(() => {});
  }
}

/** The API's refusal as one line naming the step it refused. */
async function answerOrExplain<T>(call: Promise<T>, step: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ClientError) throw new CliError(`${step}: ${error.status === 0 ? "" : `${error.status} `}${error.code}: ${error.message}`);
    throw error;
  }
}
