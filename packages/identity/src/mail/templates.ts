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

/** The mail an admin's invitation sends to a future member of the organisation. */
export function invitationMail(input: { to: string; organizationName: string; inviterEmail: string; link: string }): OutgoingMail {
  return {
    to: input.to,
    subject: oneLine(`${input.inviterEmail} invited you to ${input.organizationName}`),
    text: [
      "Hello,",
      "",
      `${input.inviterEmail} invited you to join the organization "${input.organizationName}" on the Agent Learning Service.`,
      "Open this link to accept the invitation:",
      "",
      input.link,
      "",
      "If you did not expect this invitation, ignore this mail.",
      "",
    ].join("\n"),
  };
}
