import type { Mailer, MailLog } from "./mailer.ts";

/**
 * Local mode: without an SMTP server the mail is logged whole, because its text carries the
 * verification or invitation link the local user has to open.
 */
export function createLogMailer(log: MailLog): Mailer {
  return {
    async send(mail) {
      log.info("mail not sent (no SMTP server configured); open the link it carries from here", { to: mail.to, subject: mail.subject, text: mail.text });
    },
    async close() {},
  };
}
