import { z } from "zod";
import { UnixSeconds } from "./common.ts";

/**
 * The account endpoints (the web portal's API): registration and log-in of organisation members,
 * their projects, invitations, API keys and governance sessions.
 */

/** Addresses are compared lowercased (one login per mailbox); 254 is the longest address SMTP carries. */
const Email = z.email({ error: "must be an email address" }).max(254).describe("An email address; compared without regard to letter case");

/**
 * A password as it is chosen (registration, invitation, change). The identity package checks the
 * same bounds again (`checkPasswordStrength`): an account is never made with a weaker one.
 */
const NewPassword = z
  .string()
  .min(10, "must be at least 10 characters")
  .max(256, "must be at most 256 characters")
  .describe("At least 10 and at most 256 characters");

/** A password as it is typed to prove who one is: never longer than one that could have been chosen. */
const TypedPassword = z.string().min(1, "must not be empty").max(256, "must be at most 256 characters");

const MemberRole = z
  .enum(["owner", "admin", "member"])
  .describe("owner: everything, including removing owners; admin: manages members, projects and keys; member: uses them");
const InvitedRole = z.enum(["admin", "member"]).describe("The role the invited address joins with");
const MailedToken = z.string().min(1).max(200).describe("The token of the mailed link");

export const PROJECT_ID_PATTERN = /^[a-z0-9_-]{1,63}$/;
const ProjectId = z
  .string()
  .regex(PROJECT_ID_PATTERN, "must be 1 to 63 lowercase letters, digits, '-' or '_'")
  .describe("1 to 63 lowercase letters, digits, '-' or '_'; unique within the organisation");

/** A member's session: send the token as `Authorization: Bearer <token>` to the account endpoints. */
const SessionToken = {
  token: z.string().describe("The session's bearer token; shown once, stored only as a hash"),
  expires_at: UnixSeconds.describe("When the session ends (Unix seconds)"),
};

/** A log-in session with who it belongs to. */
export const MemberSession = z.object({
  ...SessionToken,
  member_id: z.string(),
  org_id: z.string(),
  role: MemberRole,
});

export const RegisterRequest = z
  .object({
    email: Email,
    password: NewPassword,
    organization_name: z.string().trim().min(1, "must not be empty").max(200).describe("The name of the new organisation"),
  })
  .strict();

export const RegisterResponse = z.object({
  member_id: z.string(),
  org_id: z.string(),
  email: z.string(),
  email_verified: z.boolean().describe("False until the link of the verification mail is opened; log-in needs it"),
});

export const VerifyEmailQuery = z.object({ token: MailedToken });
export const VerifyEmailResponse = z.object({ verified: z.literal(true), email: z.string() });
export const ResendVerificationRequest = z.object({ email: Email }).strict();
export const ResendVerificationResponse = z.object({
  accepted: z.literal(true).describe("The same answer whether or not the address has a login waiting for verification"),
});

export const LoginRequest = z.object({ email: z.string().min(1).max(254), password: TypedPassword }).strict();

export const LogoutResponse = z.object({ success: z.literal(true) });

export const ProjectListing = z.object({ project_id: z.string(), name: z.string(), created_at: UnixSeconds });

export const MeResponse = z.object({
  member_id: z.string(),
  email: z.string(),
  role: MemberRole,
  org_id: z.string(),
  organization_name: z.string(),
  governance_entitled: z.boolean().describe("Whether the organisation may open governance sessions (granted by an operator)"),
  projects: z.array(ProjectListing),
});

export const ChangePasswordRequest = z.object({ current_password: TypedPassword, new_password: NewPassword }).strict();
export const ChangePasswordResponse = z.object(SessionToken).describe("A new session; every other session of the member has ended");

export const CreateProjectRequest = z
  .object({ project_id: ProjectId, name: z.string().trim().min(1).max(200).optional().describe("Unset: the project_id") })
  .strict();
export const ProjectsResponse = z.object({ projects: z.array(ProjectListing) });

export const CreateInvitationRequest = z.object({ email: Email, role: InvitedRole }).strict();
export const InvitationListing = z.object({
  invitation_id: z.string(),
  email: z.string(),
  role: InvitedRole,
  expires_at: UnixSeconds.describe("After this the link no longer works (Unix seconds)"),
});
export const InvitationsResponse = z.object({ invitations: z.array(InvitationListing).describe("Invitations not yet accepted, revoked or expired") });

export const AcceptInvitationRequest = z.object({ token: MailedToken, password: NewPassword }).strict();
export const AcceptInvitationResponse = MemberSession.extend({
  email: z.string(),
  invited: z.literal(true).describe("Joined by invitation: cannot use third-party sign-in"),
  email_verified: z.literal(true).describe("The invitation link proved the address"),
});

export const MemberListing = z.object({
  member_id: z.string(),
  email: z.string(),
  role: MemberRole,
  email_verified: z.boolean(),
  invited: z.boolean(),
  created_at: UnixSeconds,
});
export const MembersResponse = z.object({ members: z.array(MemberListing) });
export const RemoveMemberRequest = z.object({ member_id: z.string().min(1).max(64) });
export const ChangeMemberRoleRequest = z.object({
  member_id: z.string().min(1).max(64),
  role: MemberRole.describe("owner: only an owner grants or takes it; the last owner keeps it"),
});

const ApiKeyAccess = z.enum(["full", "limited"]).describe("limited keys cannot manage data sources");
export const CreateApiKeyRequest = z
  .object({
    name: z.string().trim().min(1, "must not be empty").max(200).describe("What the key is for, to recognise it in the list"),
    project_id: ProjectId.default("default").describe("The one project the key reaches"),
    access: ApiKeyAccess.default("full"),
  })
  .strict();
export const ApiKeyListing = z.object({
  key_id: z.string(),
  prefix: z.string().describe("The start of the key, shown in lists and used to delete it"),
  name: z.string(),
  project_id: z.string(),
  access: ApiKeyAccess,
  created_at: UnixSeconds,
  last_used_at: UnixSeconds.nullable().describe("Roughly when the key was last used (to the minute); null: never"),
});
export const CreateApiKeyResponse = ApiKeyListing.omit({ last_used_at: true }).extend({
  key: z.string().describe("The key itself: shown here once and never again"),
});
export const ApiKeysResponse = z.object({ api_keys: z.array(ApiKeyListing).describe("The organisation's live keys, newest first; never their values") });
export const DeleteApiKeyRequest = z.object({ prefix: z.string().min(1).max(64) });

export const CreateGovernanceSessionRequest = z.object({ password: TypedPassword.describe("The member's password, typed again") }).strict();
export const GovernanceSessionResponse = z.object(SessionToken).describe("A governance session: short-lived, for erasure and export");

export const OidcAuthorizeResponse = z.object({ authorization_url: z.string().describe("Send the browser here to sign in with the identity provider") });

/** What the identity provider appends to the redirect URI; other parameters are ignored. */
export const OidcCallbackQuery = z.object({
  state: z.string().min(1).max(200),
  code: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional().describe("The issuer (RFC 9207), checked when the provider sends it"),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2048).optional(),
});
