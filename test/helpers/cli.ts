/**
 * Runs the built `lotwise` binary as a child process (the CLI end-to-end tests), with the environment cleared of
 * the LOTWISE_* selectors so a developer's shell cannot point a test at another store or server.
 */
import { execFile, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { expect } from "vitest";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "lotwise.js");

/** Exit code and output of one run. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `lotwise ...args`, CI=true, no stdin; `env` adds to (or overrides) the cleared environment. */
export function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: ROOT,
        env: { ...process.env, CI: "true", LOTWISE_STORE: "", LOTWISE_URL: "", LOTWISE_API_KEY: "", ...env },
        maxBuffer: 64 << 20,
      },
      (err, stdout, stderr) =>
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The JSON a run printed, after checking that it succeeded (exit 0; stderr is the failure message). */
export function okJson(r: Run) {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** A `lotwise serve` child process on a free port. */
export interface Served {
  url: string;
  /** What the server printed at start (its --json document). */
  printed(): string;
  /** SIGTERM, then wait for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL (no clean-up at all, like an OOM kill), then wait for the process to exit. */
  kill(): Promise<void>;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
}

/**
 * Starts `lotwise serve --store <store> --port 0 [...extra] --json` and resolves with its URL once it listens;
 * `env` adds to the environment of the process.
 */
export async function serveStore(
  store: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  const server = spawn(
    process.execPath,
    [BIN, "serve", "--store", store, "--port", "0", ...extra, "--json"],
    {
      cwd: ROOT,
      env: { ...process.env, CI: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise((r) => server.once("exit", r));
  let stderr = "";
  server.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  let out = "";
  const url = await new Promise<string>((ok, fail) => {
    server.stdout!.on("data", (d) => {
      out += String(d);
      const m = /"url":\s*"([^"]+)"/.exec(out);
      if (m) ok(m[1]!);
    });
    server.once("exit", (code) => fail(new Error(`serve exited with ${code}`)));
  });
  return {
    url,
    printed: () => out,
    stop: async () => {
      server.kill("SIGTERM");
      await exited;
    },
    kill: async () => {
      server.kill("SIGKILL");
      await exited;
    },
    stderr: () => stderr,
  };
}
