import type { Client } from "@als/client";

export type ProviderCapability = Awaited<ReturnType<Client["projectDataSources"]["list"]>>["capabilities"]["providers"][number];

const CREDENTIAL_LABELS: Record<string, string> = {
  api_key: "API key",
  public_key: "Public key",
  workspace_id: "Workspace ID",
};

/** The credential fields a provider takes (required, then optional), each typed once and never filled back in. */
export function CredentialFields({
  provider,
  values,
  onChange,
}: {
  provider: ProviderCapability;
  values: Record<string, string>;
  onChange(values: Record<string, string>): void;
}) {
  return (
    <>
      {credentialFieldsOf(provider).map((field) => (
        <label key={field}>
          {CREDENTIAL_LABELS[field] ?? field}
          {provider.credential_fields.optional.includes(field) && " (optional)"}
          <input
            type={field === "workspace_id" ? "text" : "password"}
            autoComplete="off"
            value={values[field] ?? ""}
            onChange={(event) => onChange({ ...values, [field]: event.target.value })}
          />
        </label>
      ))}
    </>
  );
}

const credentialFieldsOf = (provider: ProviderCapability) => [...provider.credential_fields.required, ...provider.credential_fields.optional];

/** The credential fields filled in, as the service takes them: an empty optional field is left out. */
export function filledCredentials(
  provider: ProviderCapability,
  values: Record<string, string>,
): { api_key: string; public_key?: string; workspace_id?: string } {
  const filled = credentialFieldsOf(provider).filter((field) => values[field]?.trim());
  return Object.fromEntries(filled.map((field) => [field, values[field]!])) as { api_key: string };
}
