/** The SMTP server could not be reached or refused the mail; the message names the server (never its password) and why. */
export class MailDeliveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MailDeliveryError";
  }
}
