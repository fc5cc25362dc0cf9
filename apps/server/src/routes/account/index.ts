import acceptInvitation from "./accept-invitation.ts";
import beginOidcSignIn from "./begin-oidc-sign-in.ts";
import changeMemberRole from "./change-member-role.ts";
import changePassword from "./change-password.ts";
import createApiKey from "./create-api-key.ts";
import createGovernanceSession from "./create-governance-session.ts";
import createInvitation from "./create-invitation.ts";
import createProject from "./create-project.ts";
import deleteApiKey from "./delete-api-key.ts";
import finishOidcSignIn from "./finish-oidc-sign-in.ts";
import listApiKeys from "./list-api-keys.ts";
import listInvitations from "./list-invitations.ts";
import listMembers from "./list-members.ts";
import listProjects from "./list-projects.ts";
import localSession from "./local-session.ts";
import login from "./login.ts";
import logout from "./logout.ts";
import me from "./me.ts";
import register from "./register.ts";
import removeMember from "./remove-member.ts";
import resendVerification from "./resend-verification.ts";
import verifyEmail from "./verify-email.ts";

export const accountRoutes = {
  register,
  verifyEmail,
  login,
  localSession,
  logout,
  me,
  changePassword,
  createProject,
  listProjects,
  createInvitation,
  listInvitations,
  acceptInvitation,
  listMembers,
  changeMemberRole,
  removeMember,
  resendVerification,
  createApiKey,
  listApiKeys,
  deleteApiKey,
  createGovernanceSession,
  beginOidcSignIn,
  finishOidcSignIn,
};
