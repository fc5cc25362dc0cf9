import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, until } from "@als/test-support/server-process.ts";
import type { Subprocess } from "bun";

/**
 * The address HAProxy connects to the API processes from (its `source`), and the only one they
 * trust (TRUSTED_PROXIES): the test's clients connect from other loopback addresses, so a client
 * is told apart by its real address, as behind a production balancer, not by what it claims.
 */
export const BALANCER_SOURCE = "127.0.0.2";

export interface Answer {
  status: number;
  body: any;
  /** The API process that answered (HAProxy's server name), when it came through the balancer. */
  servedBy: string;
}

/**
 * Sends a JSON POST from the loopback address `from` with curl (`--interface`): neither Bun's fetch
 * nor its node:http bind a local address, and the balancer must see each client's own.
 */
export async function postFrom(from: string, url: string, body: object, headers: Record<string, string> = {}): Promise<Answer> {
  const curl = Bun.spawn(
    [
      "curl",
      "--silent",
      "--max-time",
      "30",
      "--interface",
      from,
      "--header",
      "content-type: application/json",
      ...Object.entries(headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]),
      "--data-binary",
      JSON.stringify(body),
      "--write-out",
      "\n%{http_code} %header{x-served-by}",
      url,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [output, exitCode] = await Promise.all([new Response(curl.stdout).text(), curl.exited]);
  if (exitCode !== 0) throw new Error(`curl from ${from} to ${url} exited ${exitCode}: ${await new Response(curl.stderr).text()}`);
  const cut = output.lastIndexOf("\n");
  const [status, servedBy = ""] = output.slice(cut + 1).split(" ");
  const text = output.slice(0, cut);
  return { status: Number(status), body: text ? JSON.parse(text) : undefined, servedBy: servedBy.trim() };
}

/**
 * Two API processes and two workers (full mode, AUTH_MODE=required) on one fresh database and one
 * task queue, behind Debian's HAProxy balancing round robin, as an operator deploys the service.
 */
export async function startBalancedDeployment(name: string, env: Record<string, string> = {}) {
  const database = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
  const taskQueue = `${name}-${crypto.randomUUID()}`;
  const serviceEnv = {
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: taskQueue,
    AUTH_MODE: "required",
    TRUSTED_PROXIES: BALANCER_SOURCE,
    ...env,
  };
  const apiPorts = [randomPort(), randomPort()] as const;
  const balancerPort = randomPort();
  const processes: Subprocess[] = [];
  const directory = mkdtempSync(join(tmpdir(), `als-${name}-`));
  const configFile = join(directory, "haproxy.cfg");
  writeFileSync(
    configFile,
    [
      "global",
      "  maxconn 512",
      "defaults",
      "  mode http",
      "  timeout connect 5s",
      "  timeout client 300s",
      "  timeout server 300s",
      // Appends the connecting client's address to X-Forwarded-For, after whatever the client sent.
      "  option forwardfor",
      "frontend api",
      `  bind 127.0.0.1:${balancerPort}`,
      "  default_backend processes",
      "backend processes",
      "  balance roundrobin",
      `  source ${BALANCER_SOURCE}`,
      "  http-response set-header x-served-by %s",
      // As operators run it: a process that stops accepting connections is taken out of the rotation
      // within half a second, and a request whose connection was refused goes to the other one.
      "  option redispatch",
      "  retries 2",
      `  server api-1 127.0.0.1:${apiPorts[0]} check inter 500 fall 1 rise 2`,
      `  server api-2 127.0.0.1:${apiPorts[1]} check inter 500 fall 1 rise 2`,
      "",
    ].join("\n"),
  );
  // The first server runs the migrations; the second starts once they are done.
  const apis = [spawnServer(apiPorts[0], serviceEnv)];
  await until(async () => ((await fetch(`http://127.0.0.1:${apiPorts[0]}/health`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000);
  apis.push(spawnServer(apiPorts[1], serviceEnv));
  const workers = [spawnWorker(serviceEnv), spawnWorker(serviceEnv)];
  processes.push(...apis, ...workers);
  await until(async () => ((await fetch(`http://127.0.0.1:${apiPorts[1]}/health`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000);
  // The balancer once both answer, so that its health checks find both up from the start.
  processes.push(Bun.spawn(["haproxy", "-db", "-f", configFile], { stdout: "ignore", stderr: "inherit" }));
  const url = `http://127.0.0.1:${balancerPort}`;
  await until(async () => ((await fetch(`${url}/health`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000);

  /** Runs the operator CLI on the deployment's database (`scripts/als`): `stdin` is piped to it. */
  async function operator(args: string[], stdin = ""): Promise<any> {
    const cli = Bun.spawn(["bun", "apps/server/src/cli/main.ts", ...args, "--json"], {
      cwd: new URL("../../", import.meta.url).pathname,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LOG_LEVEL: "error" },
      stdin: new Blob([stdin]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [output, exitCode] = await Promise.all([new Response(cli.stdout).text(), cli.exited]);
    if (exitCode !== 0) throw new Error(`als ${args.join(" ")} exited ${exitCode}: ${await new Response(cli.stderr).text()}`);
    return JSON.parse(output);
  }

  /** kill -9 of the API process HAProxy names `api-N`, or of worker N (1-based). */
  async function kill(which: `api-${1 | 2}` | `worker-${1 | 2}`): Promise<void> {
    const [role, n] = which.split("-") as ["api" | "worker", string];
    await stopProcess((role === "api" ? apis : workers)[Number(n) - 1]!, "SIGKILL");
  }

  async function close(): Promise<void> {
    await Promise.all(processes.filter((each) => each.exitCode === null && each.signalCode === null).map((each) => stopProcess(each, "SIGTERM")));
    rmSync(directory, { recursive: true, force: true });
    await database.drop();
  }

  return {
    /** Through the balancer. */
    url,
    /** Each API process directly, bypassing the balancer. */
    apiUrls: apiPorts.map((port) => `http://127.0.0.1:${port}`),
    databaseUrl: database.url,
    taskQueue,
    operator,
    kill,
    close,
  };
}

export type BalancedDeployment = Awaited<ReturnType<typeof startBalancedDeployment>>;

/**
 * An organisation made with the operator CLI, its owner signed in through the balancer from the
 * loopback address `client`: the owner's session and a new API key of its default project.
 */
export async function organisationWithKey(deployment: BalancedDeployment, client: string, password: string): Promise<{ session: string; apiKey: string }> {
  const email = `owner-${crypto.randomUUID()}@acme.example`;
  await deployment.operator(["org", "create", "--name", "Acme", "--owner-email", email, "--owner-password-stdin"], `${password}\n`);
  const login = await postFrom(client, `${deployment.url}/api/account/login`, { email, password });
  if (login.status !== 200) throw new Error(`the owner's sign-in answered ${login.status}: ${JSON.stringify(login.body)}`);
  const created = await postFrom(
    client,
    `${deployment.url}/api/account/api-keys`,
    { name: "balanced deployment", project_id: "default" },
    { authorization: `Bearer ${login.body.token}` },
  );
  if (created.status !== 201) throw new Error(`creating an API key answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { session: login.body.token, apiKey: created.body.key };
}
