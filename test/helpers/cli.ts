/**
 * Runs the built `lotwise` binary as a child process (the CLI end-to-end tests), with the environment cleared of
 * the LOTWISE_* selectors so a developer's shell cannot point a test at another store or server.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";

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
