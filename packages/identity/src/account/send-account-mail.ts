import { AppError } from "@als/contract";
import { MailDeliveryError } from "../mail/mail-delivery-error.ts";
import type { Mailer, OutgoingMail } from "../mail/mailer.ts";

/**
 * Sends a mail that carries the only copy of a token. When the mail server refuses it, `undo`
 * removes what the token was for (nobody can ever use it), so the caller can simply try again,
 * and the request answers 503 mail_unavailable with the reason.
 */
export async function sendAccountMail(mailer: Mailer, mail: OutgoingMail, undo: () => Promise<void>): Promise<void> {
  try {
    await mailer.send(mail);
  } catch (error) {
    if (!(error instanceof MailDeliveryError)) throw error;
    await undo();
    throw new AppError("mail_unavailable", `${error.message}; nothing was kept, try again later`);
  }
}
