/**
 * The package works as a library: `npm pack`, install the tarball into an empty project, and a TypeScript file
 * there imports the public API with types, type-checks and runs. Also: the export map, and no side effects on import.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

describe("the packed library", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-pack-"));
    // dist/ is built by `npm test` before vitest runs; pack without re-running prepare.
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], {
      cwd: ROOT,
      stdio: "pipe",
    });
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    // Dependencies come from the npm cache that installed this repo; the native addon's build is copied from the
    // repo (same Node, same platform) instead of compiling it again.
    // A realistic TypeScript consumer on Node has @types/node (lotwise/http's declarations use node:http).
    execFileSync(
      "npm",
      [
        "install",
        join(dir, tarball),
        "@types/node@20",
        "--ignore-scripts",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
      ],
      { cwd: dir, stdio: "pipe" },
    );
    cpSync(
      join(ROOT, "node_modules", "better-sqlite3", "build"),
      join(dir, "node_modules", "better-sqlite3", "build"),
      { recursive: true },
    );
  }, 240_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships dist, bin and fixtures but no sources or tests", () => {
    const pkg = join(dir, "node_modules", "lotwise");
    expect(existsSync(join(pkg, "dist", "index.js"))).toBe(true);
    expect(existsSync(join(pkg, "dist", "index.d.ts"))).toBe(true);
    expect(existsSync(join(pkg, "bin", "lotwise.js"))).toBe(true);
    expect(existsSync(join(pkg, "fixtures", "lots-broker-export.csv"))).toBe(true);
    expect(existsSync(join(pkg, "src"))).toBe(false);
    expect(
      readdirSync(join(pkg, "dist"), { recursive: true }).some((f) => String(f).endsWith(".test.js")),
    ).toBe(false);
  });

  it("type-checks and runs a TypeScript consumer of the public API and its subpaths", () => {
    writeFileSync(
      join(dir, "main.ts"),
      `import { buildDemo, getAccount, openStore, solveQp, selectLots, createLot, type TaxLot, VERSION } from "lotwise";
import { proposalRequestSchema, type ProposalRequest } from "lotwise/contract";
import { createApp } from "lotwise/http";
import { RemoteBackend } from "lotwise/client";
import { solveQp as solveQpPure } from "lotwise/solver";
import { selectLots as selectLotsPure } from "lotwise/tax";

const store = await openStore(":memory:");
const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
const demo = await buildDemo(ctx, { securities: 60, years: 3 });
const account = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
const qp = solveQp({
  P: { diagonal: Float64Array.of(2, 2) },
  q: Float64Array.of(-2, -4),
  A: { rows: 1, cols: 2, rowStart: Int32Array.of(0, 2), columnIndex: Int32Array.of(0, 1), values: Float64Array.of(1, 1) },
  l: Float64Array.of(1),
  u: Float64Array.of(1),
});
const lot: TaxLot = createLot({ id: "a", themeAssetId: "AAA:XNYS", quantity: "10", costBasisPerShare: "5", tradeDate: "2024-01-02" });
const sel = selectLots([lot], "4", "FIFO", { themeAssetId: "AAA:XNYS", saleDate: "2025-01-02", price: "6" });
const request: ProposalRequest = proposalRequestSchema.parse({ optimized_weights: [{ ticker: "AAA", weight: "0.5" }] });
const app = createApp({ ctx });
console.log(JSON.stringify({
  version: VERSION,
  positions: account.positions.length,
  status: qp.status,
  x: Array.from(qp.x).map((v) => Number(v.toFixed(6))),
  sold: sel.picks.map((p) => p.quantity.toString()),
  request: request.optimized_weights.length,
  app: typeof app.request,
  remote: typeof RemoteBackend.connect,
  subpaths: solveQpPure === solveQp && selectLotsPure === selectLots,
}));
await store.close();
`,
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: false,
          outDir: "out",
          types: ["node"],
        },
        files: ["main.ts"],
      }),
    );
    execFileSync(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir, stdio: "pipe" });
    const out = JSON.parse(
      execFileSync(process.execPath, [join(dir, "out", "main.js")], { cwd: dir }).toString(),
    );
    expect(out).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      positions: expect.any(Number),
      status: "optimal",
      x: [0, 1], // min (x1-1)^2 + (x2-2)^2 on x1 + x2 = 1 -> (0, 1)
      sold: ["4"],
      request: 1,
      app: "function",
      remote: "function",
      subpaths: true,
    });
    expect(out.positions).toBeGreaterThan(5);
  }, 120_000);

  it("has no side effects on import: no output, no new globals", () => {
    const probe = `const before = new Set(Object.keys(globalThis));
await import("lotwise"); await import("lotwise/contract");
// zod keeps its own registry on globalThis when it loads (zod's behaviour, not ours); anything else would be ours.
const added = Object.keys(globalThis).filter((k) => !before.has(k) && !k.startsWith("__zod_"));
console.log(JSON.stringify(added));`;
    writeFileSync(join(dir, "probe.mjs"), probe);
    const out = execFileSync(process.execPath, [join(dir, "probe.mjs")], { cwd: dir }).toString();
    expect(out.trim()).toBe("[]");
  });
});
