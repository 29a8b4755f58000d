/**
 * The in-process runner of the CLI tests (test/helpers/cli-inprocess.ts) answers as the built binary does: for help,
 * version, usage errors, failures, tables and JSON, the same exit code, stdout and stderr, byte for byte, as a
 * process of bin/lotwise.js (`npm run build` first). And a run leaves the test process as it found it: environment,
 * streams, stdin, exit code.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runBinary } from "./helpers/cli.js";
import { okJson, run } from "./helpers/cli-inprocess.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-inprocess-"));
const store = join(dir, "s.db");
const missing = join(dir, "none.db");
let client: string;

beforeAll(async () => {
  okJson(await run(["init", "--store", store, "--json", "--name", "Parity"]));
  client = okJson(
    await run(["clients", "create", "--external-id", "CRM-1", "--store", store, "--json"]),
  ).uuid;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("in-process CLI runs", () => {
  it("print the same exit code, stdout and stderr as the binary", async () => {
    const cases = [
      [],
      ["--help"],
      ["lots", "import", "--help"],
      ["--version"],
      ["frobnicate"],
      ["clients", "list", "--store", store],
      ["clients", "list", "--store", store, "--json"],
      ["clients", "show", client, "--store", store],
      ["orgs", "list", "--store", store],
      ["clients", "show", "not-a-uuid", "--store", store],
      ["clients", "list", "--store", missing],
      ["clients", "list", "--store", missing, "--json"],
      ["proposal", "create", "--store", store],
      ["clients", "list", "--url", "127.0.0.1:8000", "--api-key", "lw_x"],
      ["backtest", "start", "--account", client, "--tax-gamma", "101", "--store", store],
    ];
    // The binary's runs are independent processes: started together, compared one by one.
    const binary = await Promise.all(cases.map((args) => runBinary(args)));
    const codes = new Set<number>();
    for (const [i, args] of cases.entries()) {
      const here = await run(args);
      expect(here, args.join(" ")).toEqual(binary[i]);
      codes.add(here.code);
    }
    // The cases cover success, failure and usage errors.
    expect([...codes].sort()).toEqual([0, 1, 2]);
  }, 60_000);

  /** What a run must leave as it found it: the process's streams, stdin, exit and the LOTWISE_* variables. */
  const processState = () => ({
    write: [process.stdout.write, process.stderr.write],
    tty: [process.stdout.isTTY, process.stderr.isTTY],
    stdin: Object.getOwnPropertyDescriptor(process, "stdin"),
    exit: process.exit,
    exitCode: process.exitCode,
    store: process.env.LOTWISE_STORE,
    width: process.env.LOTWISE_TABLE_WIDTH,
  });

  it("take LOTWISE_* from env for the run only, and leave the process's streams, stdin and exit code alone", async () => {
    const before = processState();
    const viaEnv = await run(["clients", "list", "--json"], { LOTWISE_STORE: store });
    expect(okJson(viaEnv)).toEqual(okJson(await run(["clients", "list", "--json", "--store", store])));
    const failed = await run(["clients", "list", "--store", missing], { LOTWISE_TABLE_WIDTH: "40" });
    expect(failed.code).toBe(1);
    expect(processState()).toEqual(before);
  });

  it("read an empty stdin instead of waiting for one", async () => {
    const r = await run(["configs", "create", "--file", "-", "--store", store]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("- is not valid JSON");
  });

  it("refuse a JSON file that gives a key twice, naming the key and its line, and store nothing", async () => {
    const file = join(dir, "twice.json");
    writeFileSync(file, '{\n  "name": "Core",\n  "max_weight": 0.05,\n  "max_weight": 0.5\n}\n');
    const before = okJson(await run(["configs", "list", "--json", "--store", store]));
    const r = await run(["configs", "create", "--file", file, "--store", store]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${file} repeats the key "max_weight" in one object (line 4); give each key once.`,
    );
    expect(okJson(await run(["configs", "list", "--json", "--store", store]))).toEqual(before);
  });

  it("run one at a time when started together", async () => {
    const list = ["clients", "list", "--json", "--store", store];
    const [a, b, c] = await Promise.all([run(list), run(["--version"]), run(list)]);
    expect(okJson(a)).toHaveLength(1);
    expect(b.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(c.stdout).toBe(a.stdout);
  });

  it("refuse colour settings, which the CLI reads once per process", async () => {
    await expect(run(["--help"], { FORCE_COLOR: "1" })).rejects.toThrow(
      /FORCE_COLOR .*test\/helpers\/cli\.ts/,
    );
  });
});
