import { AppError } from "@als/contract";

/**
 * The offline tuner is an enterprise overlay on the configuration, not a stored field. Turning it on
 * needs the deployment's configuration reset to have run, and this deployment has none: the tuner
 * is always reported off and can never be turned on.
 */
export const OFFLINE_TUNER_OVERLAY = { enabled: false };

/** Saving the overlay as reported is a no-op; asking to turn the tuner on is a 409. */
export function checkOfflineTunerRequest(requested: { enabled: boolean } | undefined): void {
  if (requested?.enabled) {
    throw new AppError("conflict", "offline_tuner_config.enabled cannot be turned on: the deployment's configuration reset has not run", {
      reason: "config_reset_incomplete",
    });
  }
}
