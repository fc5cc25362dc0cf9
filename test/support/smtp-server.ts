import type { AddressInfo } from "node:net";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One mail as the test SMTP server received and parsed it. */
export interface ReceivedMail {
  from: string;
  /** The addresses of the `To:` header, comma-separated. */
  to: string;
  subject: string;
  text: string;
}

export interface TestSmtpServer {
  /** `smtp://user:password@127.0.0.1:<port>`: any user and password are accepted. */
  url: string;
  messages: ReceivedMail[];
  /** The first mail (already received or still to come) addressed to `to`; throws after `timeoutMs`. */
  waitForMail(to: string, timeoutMs: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const addressesOf = (header: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(header) ? header : header ? [header] : []).flatMap((group) => group.value.map((address) => address.address ?? ""));

/**
 * A real SMTP server (smtp-server, by the nodemailer authors) on 127.0.0.1 so the mailer is tested
 * over the protocol it speaks in production. Plain text only: STARTTLS is switched off so
 * nodemailer does not try to upgrade, and AUTH is allowed without TLS and accepts anything.
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const listeners = new Set<(mail: ReceivedMail) => void>();
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: true,
    // close() must not wait the default 30 s for a client that keeps its connection open.
    closeTimeout: 500,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((parsed) => {
        const mail: ReceivedMail = {
          from: addressesOf(parsed.from).join(", "),
          to: addressesOf(parsed.to).join(", "),
          subject: parsed.subject ?? "",
          text: parsed.text ?? "",
        };
        messages.push(mail);
        for (const listener of listeners) listener(mail);
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const addressedTo = (mail: ReceivedMail, to: string) => mail.to.toLowerCase().split(", ").includes(to.toLowerCase());

  return {
    url: `smtp://tester:secret@127.0.0.1:${port}`,
    messages,
    waitForMail(to, timeoutMs) {
      const received = messages.find((mail) => addressedTo(mail, to));
      if (received) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const listener = (mail: ReceivedMail) => {
          if (!addressedTo(mail, to)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${messages.map((mail) => mail.to).join("; ") || "none"})`));
        }, timeoutMs);
        listeners.add(listener);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
