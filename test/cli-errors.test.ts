/**
 * What a user sees when a command line goes wrong in the ordinary ways (issue 17): output cut short by a pager or
 * `head`, a missing file, a URL without its scheme, a server that is not running. Each is a short sentence and the
 * right exit code, never "unexpected error", a stack trace or an internal operation name.
 * Processes of the built binary (`npm run build` first): the closed pipe needs one (EPIPE handling is in
 * bin/lotwise.js), and for the handful of other commands a process start costs less than loading the CLI's sources
 * into the test process (test/helpers/cli-inprocess.ts measured slower here: docs/benchmarks.md, "Test suite").
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT, run } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-cli-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe("CLI errors a user meets", () => {
  it("ends quietly with exit 0 when the reader of its output goes away (lotwise --help | head -1)", async () => {
    const child = spawn(process.execPath, [BIN, "--help"], {
      cwd: ROOT,
      env: { ...process.env, CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    // Close the reading end at once, like a `head` that has had enough: every write of the help text then fails
    // with EPIPE (the process takes far longer to start than this line takes to run).
    child.stdout.destroy();
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(code).toBe(0);
  });

  it("names a missing input file and exits 2, without 'unexpected error'", async () => {
    const missing = join(dir, "no-such-weights.csv");
    const r = await run([
      "proposal",
      "create",
      "--store",
      join(dir, "s.db"),
      "--account",
      "00000000-0000-4000-8000-000000000001",
      "--weights",
      missing,
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot open ${missing}: no such file or folder`);
    expect(r.stderr).not.toMatch(/unexpected error|ENOENT|LOTWISE_DEBUG/);
    const j = await run([
      "proposal",
      "create",
      "--json",
      "--store",
      join(dir, "s.db"),
      "--account",
      "00000000-0000-4000-8000-000000000001",
      "--weights",
      missing,
    ]);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout).error.code).toBe("file_not_found");
  });

  it("says what --url expects when the scheme is missing, and exits 2", async () => {
    const r = await run(["clients", "list", "--url", "127.0.0.1:8000", "--api-key", "lw_x"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      '--url "127.0.0.1:8000" is not an http(s) URL (did you mean http://127.0.0.1:8000?)',
    );
    expect(r.stderr).not.toMatch(/unexpected error|HttpClient/);
    const ftp = await run(["clients", "list", "--url", "ftp://127.0.0.1", "--api-key", "lw_x"]);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain("only http:// and https:// are supported");
  });

  it("says which server it could not reach without internal operation names", async () => {
    const port = await closedPort();
    const r = await run(["clients", "list", "--url", `http://127.0.0.1:${port}`, "--api-key", "lw_x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
    expect(r.stderr).toContain("Is `lotwise serve` running there?");
    expect(r.stderr).not.toMatch(/whoAmI|listClients/);
  });
});
