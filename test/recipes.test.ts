/**
 * docs/recipes.md runs as written: every `sh` block of the page, in order, in ONE bash (set -euo pipefail: the
 * first failing command fails the test), in a fresh folder holding a copy of fixtures/recipes/, with `lotwise`
 * being the repository's bin/lotwise.js (which runs dist/: `npm run build` first). Every line of the `text` block
 * under a command block must appear in what that block printed.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fencedBlocks, REPO_ROOT, readDoc } from "./helpers/doc-blocks.js";

const run = promisify(execFile);
const page = readDoc("recipes.md");
const blocks = fencedBlocks(page);
const BIN = resolve(REPO_ROOT, "bin", "lotwise.js");

/** Each sh block with the lines its output must contain (from the text block right after it, if any). */
const steps = blocks.flatMap((b, i) =>
  b.lang === "sh"
    ? [
        {
          line: b.line,
          code: b.code,
          expect:
            blocks[i + 1]?.lang === "text"
              ? blocks[i + 1]!.code.split("\n").filter((l) => l.trim() !== "")
              : [],
        },
      ]
    : [],
);
const MARK = "::lotwise-recipe-step::";

let dir: string;
let outputs: string[] = [];
let failure: { code: number | string; output: string } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-recipes-"));
  cpSync(resolve(REPO_ROOT, "fixtures", "recipes"), join(dir, "fixtures", "recipes"), { recursive: true });
  const script = [
    "set -euo pipefail",
    // Errors and warnings are part of what a block prints (one stream keeps them in order with stdout).
    "exec 2>&1",
    `lotwise() { node ${JSON.stringify(BIN)} "$@"; }`,
    ...steps.flatMap((s) => [`echo ${MARK}`, s.code]),
  ].join("\n");
  writeFileSync(join(dir, "recipes.sh"), script);
  const env: Record<string, string> = { ...process.env, NO_COLOR: "1", LOTWISE_TABLE_WIDTH: "0" } as Record<
    string,
    string
  >;
  for (const k of ["LOTWISE_STORE", "LOTWISE_URL", "LOTWISE_API_KEY", "LOTWISE_ORG"]) delete env[k];
  try {
    const { stdout } = await run("bash", ["recipes.sh"], { cwd: dir, env, timeout: 240_000 });
    outputs = stdout.split(`${MARK}\n`).slice(1);
  } catch (e) {
    const err = e as { code: number | string; stdout: string };
    outputs = err.stdout.split(`${MARK}\n`).slice(1);
    failure = { code: err.code, output: err.stdout.slice(-3000) };
  }
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("docs/recipes.md", () => {
  it("has the two recipes, with the fixtures they use", () => {
    expect(page).toContain("## My prices CSV + my holdings CSV -> a whole-share proposal");
    expect(page).toContain("## My broker's lots CSV");
    expect(steps.length).toBeGreaterThanOrEqual(10);
    for (const m of page.matchAll(/fixtures\/recipes\/[A-Za-z0-9._-]+/g))
      expect(existsSync(resolve(REPO_ROOT, m[0])), m[0]).toBe(true);
  });

  it("runs every command block to the end with exit code 0", () => {
    expect(failure, failure?.output).toBeUndefined();
    expect(outputs).toHaveLength(steps.length);
  });

  for (const [i, step] of steps.entries()) {
    if (step.expect.length === 0) continue;
    it(`prints what the page says after the block at line ${step.line}`, () => {
      const out = outputs[i] ?? "";
      for (const line of step.expect) expect(out, `line of the text block: ${line}`).toContain(line.trim());
    });
  }

  it("writes a broker order file and a lots file whose rows add up to the proposal", () => {
    const orders = readFileSync(join(dir, "orders.csv"), "utf8").trim().split("\n");
    expect(orders[0]).toMatch(/^Account,Symbol,Exchange,Side,Quantity/);
    // Whole shares: every order has an integer quantity.
    const rows = orders.slice(1).map((l) => l.split(","));
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(r[4], r.join(",")).toMatch(/^[1-9][0-9]*$/);
    const lotsSold = readFileSync(join(dir, "lots-to-sell.csv"), "utf8").trim().split("\n");
    expect(lotsSold).toHaveLength(1 + 3);
    // The lots export reads back: 5 lots after the broker import.
    expect(readFileSync(join(dir, "lots.csv"), "utf8").trim().split("\n")).toHaveLength(1 + 5);
  });
});
