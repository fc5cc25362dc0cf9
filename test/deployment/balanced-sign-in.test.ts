import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type BalancedDeployment, postFrom, startBalancedDeployment } from "./balanced-deployment.ts";

// Sign-in limits of a deployment as operators run it: two API processes and two workers behind
// Debian's HAProxy, AUTH_MODE=required. Each client connects from a loopback address of its own.
// The default burst (ten at once) with a slow refill, one every five seconds: on a loaded machine an
// attempt (a process spawned for curl, an argon2 hash) takes up to a second, and at the default one
// a second the count would measure the machine's speed rather than the burst.

const PASSWORD = "the owner's own password";
const BURST = 10;
const PER_SECOND = 0.2;

let deployment: BalancedDeployment;
let ownerEmail: string;

beforeAll(async () => {
  deployment = await startBalancedDeployment("balanced-sign-in", { RATE_LIMIT_SIGN_IN: `${PER_SECOND}/${BURST}` });
  ownerEmail = `owner-${crypto.randomUUID()}@acme.example`;
  await deployment.operator(["org", "create", "--name", "Acme", "--owner-email", ownerEmail, "--owner-password-stdin"], `${PASSWORD}\n`);
}, 180_000);
afterAll(() => deployment?.close());

/** Wrong passwords from `from` to `url` until the first 429: how many were answered before it, by which processes, in how long. */
async function guessUntilRefused(from: string, url: string, headers: (attempt: number) => Record<string, string> = () => ({})) {
  const startedAt = performance.now();
  const servedBy = new Set<string>();
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await postFrom(from, `${url}/api/account/login`, { email: ownerEmail, password: `guess number ${attempt}` }, headers(attempt));
    if (answer.status === 429) return { allowed: attempt, seconds: (performance.now() - startedAt) / 1000, servedBy, refusal: answer };
    expect(answer.status).toBe(401);
    if (answer.servedBy) servedBy.add(answer.servedBy);
  }
  throw new Error(`no 429 after 100 wrong passwords from ${from}`);
}

describe("sign-in limits behind a balancer over two API processes", () => {
  test("a sign-in brute force spread over both processes is limited as one process limits it", async () => {
    const direct = await guessUntilRefused("127.0.0.51", deployment.apiUrls[0]!);
    // The guesser writes a new X-Forwarded-For each time: the balancer appends the real address, which is the one counted.
    const balanced = await guessUntilRefused("127.0.0.52", deployment.url, (attempt) => ({ "x-forwarded-for": `203.0.113.${attempt + 1}` }));
    console.log(
      `sign-in attempts allowed before 429: one process ${direct.allowed} in ${direct.seconds.toFixed(1)} s, through the balancer ${balanced.allowed} in ${balanced.seconds.toFixed(1)} s (processes: ${[...balanced.servedBy].sort().join(", ")})`,
    );
    expect([...balanced.servedBy].sort()).toEqual(["api-1", "api-2"]);
    for (const run of [direct, balanced]) {
      expect(run.allowed).toBeGreaterThanOrEqual(BURST);
      // The burst, and one more for each second the guessing took: never a second process's share.
      expect(run.allowed).toBeLessThanOrEqual(BURST + Math.ceil(run.seconds * PER_SECOND));
    }
    expect(balanced.refusal.body.detail).toContain("from the address 127.0.0.52");
  });

  test("another client's correct login through the balancer is not locked out by the guessing", async () => {
    // The guessers above spent their buckets and ten wrong passwords each on the owner's account.
    const answers = [];
    for (let attempt = 0; attempt < 2; attempt++)
      answers.push(await postFrom("127.0.0.60", `${deployment.url}/api/account/login`, { email: ownerEmail, password: PASSWORD }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.servedBy).sort()).toEqual(["api-1", "api-2"]);
    // The guesser's own address is refused the right password too: by its bucket (429) or, once that
    // refilled, by the account's lock, which answers as a wrong password does (counted by both processes).
    const fromGuesser = await postFrom("127.0.0.52", `${deployment.url}/api/account/login`, { email: ownerEmail, password: PASSWORD });
    expect(fromGuesser.status === 429 || (fromGuesser.status === 401 && fromGuesser.body.detail === "wrong email or password")).toBe(true);
  });
});
