import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";
import { startSmtpServer, type TestSmtpServer } from "@als/test-support/smtp-server.ts";
import { MailDeliveryError } from "../src/mail/mail-delivery-error.ts";
import { createMailer } from "../src/mail/mailer.ts";
import { invitationMail, verificationMail } from "../src/mail/templates.ts";

const FROM = "no-reply@als.test";

function recordingLog() {
  const entries: { message: string; fields?: Record<string, unknown> }[] = [];
  return { entries, info: (message: string, fields?: Record<string, unknown>) => void entries.push({ message, fields }) };
}

/** Accepts TCP connections and never says a word: an SMTP server that hangs before its greeting. */
async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe("mailer over SMTP", () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
  });

  test("a verification mail reaches the SMTP server with its link", async () => {
    const log = recordingLog();
    const mailer = createMailer({ smtpUrl: smtp.url, from: FROM }, log);
    const link = "http://127.0.0.1:8080/verify?token=alst_abc123";
    await mailer.send(verificationMail({ to: "ann@example.com", link }));
    await mailer.close();

    const received = await smtp.waitForMail("ann@example.com", 5_000);
    expect(received.from).toBe(FROM);
    expect(received.subject).toBe("Confirm your email address");
    expect(received.text).toContain(link);
    expect(JSON.stringify(log.entries)).not.toContain("secret");
  });

  test("an invitation mail names the organization, the inviter and the link", async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, from: FROM }, recordingLog());
    const link = "http://127.0.0.1:8080/invitations/accept?token=alst_xyz";
    await mailer.send(
      invitationMail({
        to: "bob@example.com",
        organizationName: "Acme\r\nBcc: evil@example.com",
        inviterEmail: "ann@example.com",
        link,
        addressHasLogin: false,
      }),
    );
    await mailer.close();

    const received = await smtp.waitForMail("bob@example.com", 5_000);
    expect(received.subject).toBe("ann@example.com invited you to Acme Bcc: evil@example.com");
    expect(received.to).toBe("bob@example.com");
    expect(received.text).toContain(link);
  });
});

describe("mailer without an SMTP server", () => {
  test("the mail is logged with its link instead of being sent", async () => {
    const log = recordingLog();
    const mailer = createMailer({ from: FROM }, log);
    const link = "http://127.0.0.1:8080/verify?token=alst_local";
    await mailer.send(verificationMail({ to: "local@example.com", link }));

    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]!.fields).toMatchObject({ to: "local@example.com", subject: "Confirm your email address" });
    expect(String(log.entries[0]!.fields?.text)).toContain(link);
  });
});

describe("mailer failures", () => {
  test("a server that never greets fails within the greeting timeout, naming the server but not the password", async () => {
    const silent = await startSilentServer();
    const mailer = createMailer({ smtpUrl: `smtp://tester:hunter2@127.0.0.1:${silent.port}`, from: FROM }, recordingLog());
    const started = performance.now();
    try {
      const error = await mailer.send(verificationMail({ to: "ann@example.com", link: "http://x/verify" })).catch((caught) => caught);
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect(error.message).toContain(`smtp://127.0.0.1:${silent.port}`);
      expect(error.message).toContain("Greeting never received");
      expect(error.message).not.toContain("hunter2");
      expect(performance.now() - started).toBeLessThan(9_000);
    } finally {
      await mailer.close();
      await silent.close();
    }
  });

  test("a refused connection fails at once with a clear error", async () => {
    const silent = await startSilentServer();
    const port = silent.port;
    await silent.close();
    const mailer = createMailer({ smtpUrl: `smtp://tester:hunter2@127.0.0.1:${port}`, from: FROM }, recordingLog());
    const started = performance.now();
    const error = await mailer.send(verificationMail({ to: "ann@example.com", link: "http://x/verify" })).catch((caught) => caught);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect(error.message).toMatch(
      new RegExp(`could not send the mail "Confirm your email address" to ann@example.com through smtp://127.0.0.1:${port}: .*ECONNREFUSED`),
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test("a URL that is not smtp:// or smtps:// is refused when the mailer is built", () => {
    expect(() => createMailer({ smtpUrl: "http://user:hunter2@127.0.0.1:25", from: FROM }, recordingLog())).toThrow("must start with smtp:// or smtps://");
  });
});
