import type { OutgoingMail } from "./mailer.ts";

/** Subjects are headers: a line break from a user-chosen name must not start a header of its own. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The mail that confirms a new member owns the address they registered with. */
export function verificationMail(input: { to: string; link: string }): OutgoingMail {
  return {
    to: input.to,
    subject: "Confirm your email address",
    text: [
      "Hello,",
      "",
      "someone (hopefully you) registered this address with the Agent Learning Service.",
      "Open this link to confirm it and finish your registration:",
      "",
      input.link,
      "",
      "If you did not register, ignore this mail; nothing happens without the link.",
      "",
    ].join("\n"),
  };
}

/**
 * The mail an admin's invitation sends to a future member of the organisation. When the address
 * already has a login (in another organisation: one login per address), the mail says so to its
 * owner, never the admin's answer, which is the same either way.
 */
export function invitationMail(input: { to: string; organizationName: string; inviterEmail: string; link: string; addressHasLogin: boolean }): OutgoingMail {
  const taken = [
    "This address already has a login with the service, and an address can belong to one organization only:",
    "the link works once that login is removed (leave the other organization first), or ask to be invited",
    "with another address.",
    "",
  ];
  return {
    to: input.to,
    subject: oneLine(`${input.inviterEmail} invited you to ${input.organizationName}`),
    text: [
      "Hello,",
      "",
      `${input.inviterEmail} invited you to join the organization "${input.organizationName}" on the Agent Learning Service.`,
      "",
      ...(input.addressHasLogin ? taken : []),
      "Open this link to accept the invitation:",
      "",
      input.link,
      "",
      "If you did not expect this invitation, ignore this mail.",
      "",
    ].join("\n"),
  };
}

/**
 * The mail a registration with an address that already has a verified login sends: the registrant
 * is answered as for any address, so the owner of the address is the one told.
 */
export function alreadyRegisteredMail(input: { to: string; loginUrl: string }): OutgoingMail {
  return {
    to: input.to,
    subject: "You already have a login",
    text: [
      "Hello,",
      "",
      "someone (hopefully you) tried to register this address with the Agent Learning Service,",
      "but it already has a login. Nothing was changed; log in with your password or your",
      "identity provider instead:",
      "",
      input.loginUrl,
      "",
      "If it was not you, ignore this mail.",
      "",
    ].join("\n"),
  };
}
