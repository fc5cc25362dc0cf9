import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { ProviderCredentials } from "@als/sources";
import type { CoreDeps } from "../deps.ts";

const VERSION = "v1";

/** AES-256 key of the deployment's data-source secret: DATA_SOURCE_CREDENTIAL_KEY, else the one the database holds. */
async function sealingKey(deps: CoreDeps): Promise<Buffer> {
  const secret = deps.dataSources?.credentialKey ?? (await deps.services.secrets.get("data_source_credentials"));
  return createHash("sha256").update(secret).digest();
}

/**
 * The credential fields sealed with AES-256-GCM. The connection id is the additional data, so a
 * sealed value copied onto another connection's row does not open there.
 */
export async function sealCredentials(deps: CoreDeps, connectionId: string, credentials: ProviderCredentials): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", await sealingKey(deps), iv);
  cipher.setAAD(Buffer.from(connectionId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials), "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), sealed.toString("base64url")].join(".");
}

export async function openCredentials(deps: CoreDeps, connectionId: string, sealed: string): Promise<ProviderCredentials> {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || !data) throw new Error(`connection ${connectionId}: sealed credentials of an unknown format`);
  const decipher = createDecipheriv("aes-256-gcm", await sealingKey(deps), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(connectionId));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8"));
}
