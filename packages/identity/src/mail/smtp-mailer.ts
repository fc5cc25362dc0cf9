import type { Transporter } from "nodemailer";
import { MailDeliveryError } from "./mail-delivery-error.ts";
import type { Mailer } from "./mailer.ts";

/**
 * Every wait of an SMTP exchange is bounded, so a mail server that does not answer fails the
 * request that sends the mail within seconds instead of holding it (nodemailer's defaults are
 * 2 minutes to connect and 10 minutes of socket silence).
 */
const SMTP_TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000, dnsTimeout: 5_000 } as const;

/**
 * Sends through the SMTP server of `smtpUrl`; one connection per mail, as mails are rare. nodemailer
 * is loaded with the first mail, not at every start of a process that may never send one.
 */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const server = describeServer(smtpUrl);
  let transport: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      try {
        transport ??= import("nodemailer").then(({ createTransport }) => createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }));
        await (await transport).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new MailDeliveryError(`could not send the mail "${mail.subject}" to ${mail.to} through ${server}: ${reason}`, { cause: error });
      }
    },
    async close() {
      (await transport)?.close();
    },
  };
}

/** `smtp://host:port` without the credentials, for error messages: the password must never reach a log. */
function describeServer(smtpUrl: string): string {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    // Not echoed: the text may hold the password.
    throw new Error("the SMTP URL is not a URL; expected smtp://user:password@host:port or smtps://...");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new Error(`the SMTP URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  return `${url.protocol}//${url.host}`;
}
