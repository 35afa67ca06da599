// Stand-in for fauxqs's src/app.js while fauxqs's SQS tests run against lqsd.
//
// startFauxqs() spawns one lqsd process (temporary database, fresh per call) and
// resolves with an object shaped like the parts of fauxqs's FauxqsServer that a
// wire-level test can honour: port, address, stop(). Everything else on that
// object is a fauxqs in-process API (spy, inspectQueue, createQueue, setup,
// reset, sendMessage, ...); touching it throws NotApplicableError so the runner
// can count that test as "not applicable" instead of as an lqsd failure.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { NotApplicableError } from "./not-applicable.ts";

export { NotApplicableError };

// Types the tests import by name; only used as types.
export type RelaxedRules = Record<string, unknown>;
export type FauxqsServer = LqsdServer & Record<string, any>;

export interface StartOptions {
  port?: number;
  logger?: boolean;
  host?: string;
  messageSpies?: unknown;
  ordering?: { seed?: number };
  relaxedRules?: RelaxedRules;
  [key: string]: unknown;
}

// fauxqs's fixed account id; the tests hard-code it in URLs and ARNs.
const ACCOUNT_ID = "000000000000";

const LQSD = process.env.LQSD_BIN;
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

interface LqsdServer {
  readonly port: number;
  readonly address: string;
  stop(): Promise<void>;
  close(): Promise<void>;
}

// Names of FauxqsServer members that only an in-process fauxqs has.
const FAUXQS_ONLY = new Set([
  "spy",
  "inspectQueue",
  "createQueue",
  "deleteQueue",
  "sendMessage",
  "createTopic",
  "subscribe",
  "createBucket",
  "setup",
  "reset",
  "purgeAll",
  "tenants",
]);

async function launch(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  if (!LQSD) throw new Error("LQSD_BIN is not set (path to the lqsd binary)");
  const child = spawn(LQSD, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.on("exit", () => running.delete(child));
  let log = "";
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /lqsd listening on http:\/\/[^\s:]+:(\d+)/.exec(log);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`lqsd exited (${code}) before listening:\n${log}`)));
    setTimeout(() => reject(new Error(`lqsd did not start within 10 s:\n${log}`)), 10_000).unref();
  });
  // Keep draining output so the pipes never fill.
  child.stdout!.resume();
  child.stderr!.resume();
  return { child, port };
}

export async function startFauxqs(options: StartOptions = {}): Promise<FauxqsServer> {
  if (options.ordering !== undefined) {
    throw new NotApplicableError("startFauxqs({ordering}) (fauxqs's seeded delivery order)");
  }
  // fauxqs hands out http://sqs.<region>.<host>:<port>/000000000000/<name>, host
  // "localhost" unless configured; lqsd's --url-style host gives the same shape.
  const port = options.port && options.port !== 0 ? options.port : await freePort();
  const args = [
    "--listen",
    `127.0.0.1:${port}`,
    "--account-id",
    ACCOUNT_ID,
    "--url-style",
    "host",
    "--no-purge-interval",
    "--no-queue-reuse-delay",
    "--log-level",
    process.env.LQSD_LOG_LEVEL ?? "warn",
  ];
  if (options.host) args.push("--public-url", `http://${options.host}:${port}`);
  const { child } = await launch(args);

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const base: LqsdServer = { port, address: `http://127.0.0.1:${port}`, stop, close: stop };
  return new Proxy(base as FauxqsServer, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && FAUXQS_ONLY.has(prop)) {
        throw new NotApplicableError(`server.${prop} (fauxqs in-process API)`);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
