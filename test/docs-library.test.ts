/**
 * docs/library.md: every `ts` block runs as it is, against the repository's sources, and prints exactly the
 * `text` block under it. `from "lotwise"` is mapped to src/index.ts and `from "lotwise/SUB"` to the source file of
 * the package.json export SUB, so the page's imports are also checked to exist.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type DocBlock, fencedBlocks, REPO_ROOT, readDoc } from "./helpers/doc-blocks.js";

const run = promisify(execFile);
const page = readDoc("library.md");
const blocks = fencedBlocks(page);
const dir = mkdtempSync(join(tmpdir(), "lotwise-docs-library-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exportsMap = (
  JSON.parse(readFileSync(resolve(REPO_ROOT, "package.json"), "utf8")) as {
    exports: Record<string, string | { import: string }>;
  }
).exports;

/** The source file of a package specifier ("lotwise", "lotwise/solver"), from package.json "exports". */
function sourceOf(specifier: string): string {
  const sub = specifier === "lotwise" ? "." : `./${specifier.slice("lotwise/".length)}`;
  const target = exportsMap[sub];
  if (target === undefined || typeof target === "string")
    throw new Error(`docs/library.md imports ${specifier}, which package.json does not export`);
  const file = target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts");
  return pathToFileURL(resolve(REPO_ROOT, file)).href;
}

/** An example with its package imports pointed at the sources. */
function mapImports(code: string): string {
  return code.replace(/from "(lotwise(?:\/[a-z-]+)?)"/g, (_m, spec: string) => `from "${sourceOf(spec)}"`);
}

/** Each ts block with the text block right after it. */
const examples: { code: DocBlock; expected: DocBlock }[] = [];
blocks.forEach((b, i) => {
  if (b.lang !== "ts") return;
  const next = blocks[i + 1];
  if (next?.lang !== "text") throw new Error(`the ts block at line ${b.line} has no text block after it`);
  examples.push({ code: b, expected: next });
});

describe("docs/library.md examples", () => {
  it("covers the main entry points, each with its expected output", () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
    const all = examples.map((e) => e.code.code).join("\n");
    for (const name of [
      "openStore",
      "buildDemo",
      "importLots",
      "createProposal",
      "optimizeAccount",
      "rebalanceAccount",
      "runAccountBacktest",
      "solveQp",
      "applySale",
    ])
      expect(all, name).toContain(`${name}(`);
    expect(all).toContain('from "lotwise/solver"');
    expect(all).toContain('from "lotwise/tax"');
    for (const e of examples) expect(e.expected.code.trim(), `line ${e.expected.line}`).not.toBe("");
  });

  it("maps every package import to an existing source file", () => {
    expect(mapImports('import { a } from "lotwise";')).toContain("/src/index.ts");
    expect(mapImports('import { a } from "lotwise/solver";')).toContain("/src/core/numeric/index.ts");
    expect(() => mapImports('import { a } from "lotwise/nope";')).toThrow(/does not export/);
  });

  for (const [i, { code, expected }] of examples.entries()) {
    const title = page
      .slice(0, page.split("\n").slice(0, code.line).join("\n").length)
      .match(/^## (.+)$/gm)
      ?.pop();
    it(`prints what the page says: ${title?.slice(3) ?? `block ${i + 1}`} (line ${code.line})`, async () => {
      const file = join(dir, `example-${i + 1}.mts`);
      writeFileSync(file, mapImports(code.code));
      const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", file], {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: "1" },
        timeout: 60_000,
      });
      expect(stderr).toBe("");
      expect(stdout.trimEnd()).toBe(expected.code.trimEnd());
    }, 90_000);
  }
});
