import { profiles } from "@als/db";
import type { CoreDeps } from "./deps.ts";
import { reembedProfilesStep } from "./profiles/reembed-profiles.ts";

const REEMBED_BATCH = 256;

/**
 * The embedded mode's orchestrator: it calls the same idempotent steps that Temporal workflows call
 * as activities in full mode, in this process, one pass at a time.
 */
export class Reconciler {
  private pass: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly deps: CoreDeps,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts a pass, or asks the running pass to run once more when it ends. */
  poke(): void {
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run().finally(() => {
      this.pass = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  /** Resolves when no pass is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pass) await this.pass;
  }

  private async run(): Promise<void> {
    try {
      for (const scope of await profiles.findScopesWithStaleEmbeddings(this.deps.db, this.deps.embedder.modelId)) {
        let progress;
        do progress = await reembedProfilesStep(this.deps, scope, REEMBED_BATCH);
        while (progress.remaining > 0 && progress.reembedded > 0);
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
