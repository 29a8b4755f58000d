/**
 * Runs `lotwise` inside the test process: `main(["node", "lotwise", ...args])` of src/cli/main.ts, with what it
 * writes to stdout and stderr captured, instead of a child process per command (test/helpers/cli.ts). Same shape
 * and same answers as that helper — exit code 0/1/2, the exact text the binary prints — without the half second of
 * process start-up per command, which made the CLI end-to-end files the slowest of the suite under load.
 *
 * For the duration of a call, as for a child process of test/helpers/cli.ts:
 * - the environment is the test process's with CI=true and LOTWISE_STORE/LOTWISE_URL/LOTWISE_API_KEY cleared, plus
 *   `env`; every variable is restored afterwards;
 * - stdout and stderr are not terminals (`isTTY` false: no table fitting, no colour, no spinner, help at 80
 *   columns), and everything written to them — by the CLI's Output, commander, or anything else in the process,
 *   worker threads included — is captured and not shown;
 * - stdin is empty (a command reading `-` gets no input instead of waiting);
 * - `process.exit(n)` ends the command with code n instead of ending the test process;
 * - `process.exitCode` and `process.argv` are left as they were.
 * Calls run one at a time (a promise chain), since the environment and the streams are the process's.
 *
 * What stays with the binary (test/helpers/cli.ts): start-up and module loading, `--version`, EPIPE and signals,
 * `lotwise serve` and `lotwise worker` processes, processes killed mid-command, several commands at once on one
 * store, and colour: the CLI decides its colour level once per process (src/cli/colour.ts), so a run that sets
 * FORCE_COLOR, NO_COLOR or TERM is refused here.
 */
import { Readable } from "node:stream";
import { main } from "../../src/cli/main.js";
import { BIN, type Run } from "./cli.js";

export { okJson, type Run } from "./cli.js";

/** Variables every run sees, before the run's own `env` (as test/helpers/cli.ts sets them for the child). */
const BASE_ENV: Readonly<Record<string, string>> = {
  CI: "true",
  LOTWISE_STORE: "",
  LOTWISE_URL: "",
  LOTWISE_API_KEY: "",
};

/** Variables the CLI reads once per process: a run cannot change them (see the module comment). */
const PER_PROCESS = ["FORCE_COLOR", "NO_COLOR", "TERM"];

/** Process events a command may listen to while it runs; a listener left behind would outlive its run. */
const WATCHED_EVENTS = ["SIGINT", "SIGTERM", "uncaughtException", "unhandledRejection", "exit"] as const;

let queue: Promise<unknown> = Promise.resolve();

/** `lotwise ...args` in this process, CI=true, empty stdin; `env` adds to (or overrides) the cleared environment. */
export function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const result = queue.then(() => runNow(args, env));
  queue = result.catch(() => undefined);
  return result;
}

/** Thrown by the stand-in for process.exit: the command asked to end the process with `code`. */
class ExitRequest extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

type Write = typeof process.stdout.write;

/** A stream's write that appends to `into` instead of writing. */
function captureInto(into: string[]): Write {
  return ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    into.push(
      typeof chunk === "string"
        ? chunk
        : Buffer.from(chunk).toString(typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"),
    );
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") process.nextTick(done as () => void);
    return true;
  }) as Write;
}

async function runNow(args: string[], env: Record<string, string>): Promise<Run> {
  const perProcess = PER_PROCESS.filter((k) => k in env);
  if (perProcess.length > 0)
    throw new Error(
      `cli-inprocess: ${perProcess.join(", ")} cannot change within one process (the CLI decides colour once); run this through test/helpers/cli.ts`,
    );
  const vars = { ...BASE_ENV, ...env };
  const savedEnv = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const streams = [
    { stream: process.stdout, into: stdout },
    { stream: process.stderr, into: stderr },
  ];
  const saved = streams.map(({ stream }) => ({
    write: stream.write,
    isTTY: Object.getOwnPropertyDescriptor(stream, "isTTY"),
  }));
  const stdin = Object.getOwnPropertyDescriptor(process, "stdin")!;
  const { exit, exitCode, argv } = process;
  const listeners = WATCHED_EVENTS.map((e) => process.listenerCount(e));
  let exitAt: { code: number; stdout: number; stderr: number } | undefined;

  for (const [k, v] of Object.entries(vars)) process.env[k] = v;
  for (const { stream, into } of streams) {
    stream.write = captureInto(into);
    Object.defineProperty(stream, "isTTY", { value: false, configurable: true, writable: true });
  }
  Object.defineProperty(process, "stdin", {
    value: Readable.from([]),
    configurable: true,
    enumerable: true,
    writable: true,
  });
  process.exit = ((code?: number | string | null) => {
    const n =
      code === undefined || code === null ? ((process.exitCode as number | undefined) ?? 0) : Number(code);
    exitAt ??= { code: n, stdout: stdout.length, stderr: stderr.length };
    throw new ExitRequest(n);
  }) as typeof process.exit;

  let code: number;
  try {
    code = await main([process.execPath, BIN, ...args]);
  } catch (err) {
    if (!(err instanceof ExitRequest)) {
      // bin/lotwise.js does not catch either: Node prints the error and exits 1.
      stderr.push(`${(err as Error).stack ?? String(err)}\n`);
    }
    code = 1;
  } finally {
    for (const [k, v] of savedEnv) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    streams.forEach(({ stream }, i) => {
      stream.write = saved[i]!.write;
      if (saved[i]!.isTTY) Object.defineProperty(stream, "isTTY", saved[i]!.isTTY);
      else delete (stream as { isTTY?: boolean }).isTTY;
    });
    Object.defineProperty(process, "stdin", stdin);
    process.exit = exit;
    process.exitCode = exitCode;
    process.argv = argv;
  }
  const left = WATCHED_EVENTS.filter((e, i) => process.listenerCount(e) > listeners[i]!);
  if (left.length > 0)
    throw new Error(
      `cli-inprocess: lotwise ${args.join(" ")} left process listeners behind: ${left.join(", ")}`,
    );
  if (exitAt) {
    // The process would have ended there: nothing written afterwards would have been seen.
    stdout.length = exitAt.stdout;
    stderr.length = exitAt.stderr;
    code = exitAt.code;
  }
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}
