import { createLogMailer } from "./log-mailer.ts";
import { createSmtpMailer } from "./smtp-mailer.ts";

/** One plain-text mail the service sends (a verification link, an invitation). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; throws MailDeliveryError otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

export interface MailSettings {
  /** `smtp://user:pass@host:port` or `smtps://...`; without it mails are logged instead of sent. */
  smtpUrl?: string;
  /** The sender address (`From:` header and envelope). */
  from: string;
}

export interface MailLog {
  info(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The mailer of the process: through the configured SMTP server, or — for a local install without
 * one — written to the log, so the person running it can still open the link the mail carries.
 */
export function createMailer(settings: MailSettings, log: MailLog): Mailer {
  return settings.smtpUrl ? createSmtpMailer(settings.smtpUrl, settings.from) : createLogMailer(log);
}
