import { AppError } from "@als/contract";
import { type ApiKeyAccess, type ApiKeyRecord, apiKeys, type OrganizationRecord, organizations } from "@als/db";
import { createApiKey, createOrganization, deleteApiKey, type IdentityDeps, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, toApiKeyListing } from "@als/identity";
import { z } from "zod";
import { CliError } from "./cli-error.ts";
import type { ProgressOutput } from "./progress-bar.ts";
import { SERVICE_COMMANDS } from "./service-commands.ts";

/** What node:util parseArgs returns for a command's options, defaults applied. */
export type OptionValues = Record<string, string | boolean | undefined>;

export interface OptionSpec {
  type: "string" | "boolean";
  /** How the value is written in the help (`<org_id>`). */
  placeholder?: string;
  required?: boolean;
  default?: string;
  help: string;
}

export interface CommandResult {
  /** What `--json` prints on stdout. */
  json: Record<string, unknown>;
  /** What is printed on stdout otherwise. */
  lines: string[];
  /** Printed on stderr in both forms: what the operator must not miss (a key value shown once). */
  notice?: string;
}

/** The work a command does once the database is open; `progress` writes a line to stderr. */
export type CommandRun = (deps: IdentityDeps, progress: (line: string) => void) => Promise<CommandResult>;

interface CommandShape {
  /** `["org", "create"]` or `["import"]`: what is typed after `als`. */
  words: readonly [string] | readonly [string, string];
  summary: string;
  options: Record<string, OptionSpec>;
  /** The one argument that is not an option (`als import <file>`), given to the command under its name. */
  positional?: { name: string; placeholder: string; help: string };
}

/** A command on the server's own database (in embedded mode, with the server stopped). */
export interface DatabaseCommand extends CommandShape {
  reaches: "database";
  /**
   * Checks the arguments (and reads stdin) before anything is opened, so a typo costs nothing and
   * changes nothing, and returns the work to run on the database.
   */
  prepare(values: OptionValues, io: { readStdin(): Promise<string> }): Promise<CommandRun>;
}

/** What a command that talks to the service's API is given by the entry point. */
export interface ServiceCommandIo {
  readStdin(): Promise<string>;
  /** Asks for a secret on the terminal without echoing it; null without a terminal. */
  promptSecret(question: string): Promise<string | null>;
  /** Where progress is drawn. */
  stderr: ProgressOutput;
  /** SERVICE_API_KEY, if set. */
  apiKeyFromEnvironment: string | undefined;
}

/** A command that talks to a running service through its HTTP API and opens no database. */
export interface ServiceCommand extends CommandShape {
  reaches: "service";
  run(values: OptionValues, io: ServiceCommandIo): Promise<CommandResult>;
}

export type OperatorCommand = DatabaseCommand | ServiceCommand;

const ORG_OPTION: OptionSpec = { type: "string", placeholder: "<org_id>", required: true, help: "the organisation (org_…, as `als org create` printed it)" };

/** Project ids travel in URLs and the X-Service-Project header: keep them to safe, lowercase characters. */
const PROJECT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** What `als key list` shows: `als_` and eight characters (see newApiKeyValue). */
const KEY_PREFIX = /^als_[A-Za-z0-9_-]{8}$/;
const ACCESS_LEVELS: readonly ApiKeyAccess[] = ["full", "limited"];
const EmailAddress = z.email();

const text = (values: OptionValues, name: string): string => String(values[name]);

/** Unix seconds as ISO 8601 to the second (what the wire carries stays Unix seconds in `--json`). */
const isoTime = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

async function requireOrganization(deps: IdentityDeps, orgId: string): Promise<OrganizationRecord> {
  const org = await organizations.findOrganization(deps.db, orgId);
  if (org === null) throw new CliError(`--org: there is no organisation ${orgId} (\`als org create\` makes one)`);
  return org;
}

/** A key as it is listed (never its value: only its hash is stored), with who made it. */
const keyView = (key: ApiKeyRecord) => ({ ...toApiKeyListing(key), created_by: key.created_by });

function keyValueNotice(prefix: string): string {
  return `the API key value above is shown this once and cannot be read again: store it now (it is listed and revoked by its prefix ${prefix})`;
}

/** Aligned columns for humans; `--json` is the form for scripts. */
function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}

const createOrg: DatabaseCommand = {
  reaches: "database",
  words: ["org", "create"],
  summary: "create an organisation, its `default` project, its owner and a first full-access API key",
  options: {
    name: { type: "string", placeholder: "<name>", required: true, help: "the organisation's name" },
    "owner-email": { type: "string", placeholder: "<email>", required: true, help: "the owner's address (recorded as verified)" },
    "owner-password-stdin": {
      type: "boolean",
      help: `read the owner's password from stdin (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters; one trailing newline is dropped); without it the owner signs in through OpenID Connect only`,
    },
  },
  async prepare(values, io) {
    const name = text(values, "name").trim();
    const ownerEmail = text(values, "owner-email").trim();
    if (!EmailAddress.safeParse(ownerEmail).success) throw new CliError(`--owner-email: '${ownerEmail}' is not an email address`);
    let ownerPassword: string | null = null;
    if (values["owner-password-stdin"] === true) {
      ownerPassword = (await io.readStdin()).replace(/\r?\n$/, "");
      if (ownerPassword.length < PASSWORD_MIN_LENGTH || ownerPassword.length > PASSWORD_MAX_LENGTH) {
        throw new CliError(
          `--owner-password-stdin: the password read from stdin has ${ownerPassword.length} characters; it must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH}`,
        );
      }
    }
    return async (deps, progress) => {
      let created: Awaited<ReturnType<typeof createOrganization>>;
      try {
        created = await createOrganization(deps, { name, ownerEmail, ownerPassword, emailVerified: true });
      } catch (error) {
        if (error instanceof AppError && error.code === "conflict") throw new CliError(`--owner-email: ${error.message}; nothing was created`);
        throw error;
      }
      const { orgId, owner } = created;
      progress(`created organisation ${orgId} with project default and owner ${owner.member_id}`);
      // The operator made it, not the owner: created_by stays null, as for every key the CLI makes.
      const { value, key } = await createApiKey(deps, orgId, { projectId: "default", name: "first key", access: "full", createdBy: null });
      progress(`created full-access API key ${key.prefix} on project default`);
      const signIn = ownerPassword === null ? "oidc" : "password";
      return {
        json: {
          org_id: orgId,
          name,
          project_id: "default",
          owner_member_id: owner.member_id,
          owner_email: owner.email,
          owner_sign_in: signIn,
          api_key: { value, ...keyView(key) },
        },
        lines: columns([
          ["org_id", orgId],
          ["name", name],
          ["project", "default"],
          ["owner", `${owner.member_id} ${owner.email} (verified; signs in ${signIn === "oidc" ? "through OpenID Connect only" : "with a password"})`],
          ["api_key", value],
          ["key_prefix", `${key.prefix} (full access, project default)`],
        ]),
        notice: keyValueNotice(key.prefix),
      };
    };
  },
};

const createKey: DatabaseCommand = {
  reaches: "database",
  words: ["key", "create"],
  summary: "create an API key bound to one project of an organisation (its value is printed once)",
  options: {
    org: ORG_OPTION,
    project: { type: "string", placeholder: "<project_id>", default: "default", help: "the project the key reaches, and no other" },
    name: { type: "string", placeholder: "<name>", default: "operator key", help: "a label members see in the key list" },
    access: { type: "string", placeholder: "full|limited", default: "full", help: "`limited` keys cannot manage data sources" },
  },
  async prepare(values) {
    const orgId = text(values, "org");
    const projectId = text(values, "project");
    const name = text(values, "name").trim();
    const access = text(values, "access") as ApiKeyAccess;
    if (!ACCESS_LEVELS.includes(access)) throw new CliError(`--access must be full or limited, not '${access}'`);
    return async (deps, progress) => {
      await requireOrganization(deps, orgId);
      if (!(await organizations.projectExists(deps.db, orgId, projectId))) {
        throw new CliError(`--project: organisation ${orgId} has no project ${projectId} (\`als project create\` makes one)`);
      }
      const { value, key } = await createApiKey(deps, orgId, { projectId, name, access, createdBy: null });
      progress(`created ${access}-access API key ${key.prefix} on project ${projectId} of ${orgId}`);
      return {
        json: { org_id: orgId, api_key: { value, ...keyView(key) } },
        lines: columns([
          ["api_key", value],
          ["key_prefix", `${key.prefix} (${access} access, project ${projectId}, "${name}")`],
        ]),
        notice: keyValueNotice(key.prefix),
      };
    };
  },
};

const listKeys: DatabaseCommand = {
  reaches: "database",
  words: ["key", "list"],
  summary: "list an organisation's live API keys: prefix, name, project, access, created, last used (never values)",
  options: { org: ORG_OPTION },
  async prepare(values) {
    const orgId = text(values, "org");
    return async (deps) => {
      await requireOrganization(deps, orgId);
      const keys = await apiKeys.listLiveApiKeys(deps.db, orgId);
      const rows = keys.map((key) => [
        key.prefix,
        key.name,
        key.project_id,
        key.access,
        isoTime(key.created_at),
        key.last_used_at === null ? "never" : isoTime(key.last_used_at),
      ]);
      return {
        json: { org_id: orgId, api_keys: keys.map(keyView) },
        lines:
          keys.length === 0
            ? [`organisation ${orgId} has no live API keys`]
            : columns([["PREFIX", "NAME", "PROJECT", "ACCESS", "CREATED", "LAST USED"], ...rows]),
      };
    };
  },
};

const revokeKey: DatabaseCommand = {
  reaches: "database",
  words: ["key", "revoke"],
  summary: "revoke an API key by its prefix; requests with it answer 401 at once",
  options: { org: ORG_OPTION, prefix: { type: "string", placeholder: "<als_xxxxxxxx>", required: true, help: "the key's prefix, as `als key list` shows it" } },
  async prepare(values) {
    const orgId = text(values, "org");
    const prefix = text(values, "prefix");
    if (!KEY_PREFIX.test(prefix)) {
      throw new CliError(
        `--prefix must be a key prefix like als_1a2b3c4d (\`als key list\` shows them), not '${prefix.slice(0, 12)}${prefix.length > 12 ? "…" : ""}'`,
      );
    }
    return async (deps, progress) => {
      await requireOrganization(deps, orgId);
      let revoked: ApiKeyRecord;
      try {
        revoked = await deleteApiKey(deps, orgId, prefix);
      } catch (error) {
        if (error instanceof AppError && error.code === "not_found") throw new CliError(`--prefix: organisation ${orgId} has no live API key ${prefix}`);
        throw error;
      }
      progress(`revoked API key ${prefix}`);
      return {
        json: { org_id: orgId, revoked: keyView(revoked) },
        lines: [`revoked ${prefix} ("${revoked.name}", ${revoked.access} access, project ${revoked.project_id}); requests with it now answer 401`],
      };
    };
  },
};

function governanceCommand(action: "grant" | "revoke"): DatabaseCommand {
  const entitled = action === "grant";
  return {
    reaches: "database",
    words: ["governance", action],
    summary: entitled
      ? "grant the governance entitlement (export and erasure through governance sessions of admins)"
      : "withdraw the governance entitlement; the organisation's governance sessions end at once",
    options: { org: ORG_OPTION },
    async prepare(values) {
      const orgId = text(values, "org");
      return async (deps, progress) => {
        if (!(await organizations.setGovernanceEntitlement(deps.db, orgId, entitled))) {
          throw new CliError(`--org: there is no organisation ${orgId} (\`als org create\` makes one)`);
        }
        progress(`${entitled ? "granted" : "revoked"} the governance entitlement of ${orgId}`);
        return {
          json: { org_id: orgId, governance_entitled: entitled },
          lines: columns([
            ["org_id", orgId],
            ["governance_entitled", String(entitled)],
          ]),
        };
      };
    },
  };
}

const createProject: DatabaseCommand = {
  reaches: "database",
  words: ["project", "create"],
  summary: "add a project to an organisation (keys are bound to one project)",
  options: {
    org: ORG_OPTION,
    project: { type: "string", placeholder: "<project_id>", required: true, help: "1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit" },
    name: { type: "string", placeholder: "<name>", help: "a display name (default: the project id)" },
  },
  async prepare(values) {
    const orgId = text(values, "org");
    const projectId = text(values, "project");
    if (!PROJECT_ID.test(projectId)) {
      throw new CliError(`--project must be 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit, not '${projectId}'`);
    }
    const name = typeof values.name === "string" ? values.name.trim() : projectId;
    return async (deps, progress) => {
      await requireOrganization(deps, orgId);
      if (!(await organizations.insertProject(deps.db, orgId, { projectId, name }, deps.now()))) {
        throw new CliError(`--project: organisation ${orgId} already has a project ${projectId}`);
      }
      progress(`created project ${projectId} in ${orgId}`);
      return {
        json: { org_id: orgId, project_id: projectId, name },
        lines: columns([
          ["org_id", orgId],
          ["project", projectId],
          ["name", name],
        ]),
      };
    };
  },
};

/** Every command of `als`, in the order the help lists them. */
export const OPERATOR_COMMANDS: readonly OperatorCommand[] = [
  createOrg,
  createKey,
  listKeys,
  revokeKey,
  governanceCommand("grant"),
  governanceCommand("revoke"),
  createProject,
  ...SERVICE_COMMANDS,
];
