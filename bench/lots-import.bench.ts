/**
 * Lots import at scale (issue 12, defect 7): a CSV of 1,000,000 lot rows (`--rows N` to change) generated in a
 * temporary directory, imported into an empty account of a store file by the service operation the CLI and the
 * server call (`importLots`: streamed parse, staged on disk, one transaction), in a CHILD process running the
 * built package (`dist/`), so that its peak RSS (`process.resourceUsage().maxRSS`) is the import's alone.
 * Goal: peak RSS < 300 MiB. Writes bench/results/lots-import.json. Run with `npm run bench:lots-import`.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import { createAccount, createClient, createOrganization } from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, writeResult } from "./lib/harness.js";

const GOAL_MIB = 300;
const rowsArg = process.argv.indexOf("--rows");
const rows = rowsArg > 0 ? Number(process.argv[rowsArg + 1]) : 1_000_000;
const dir = mkdtempSync(join(tmpdir(), "lotwise-bench-lots-"));
const dist = resolve(import.meta.dirname, "..", "dist", "service", "index.js");
const storeDist = resolve(import.meta.dirname, "..", "dist", "store", "index.js");

try {
  // A store with a small synthetic market, an organization and an empty account.
  const storePath = join(dir, "store.db");
  const store = openSqliteStore(storePath);
  const market = generateMarket({ seed: 7, securities: 60, years: 1, endDate: "2025-06-30" });
  writeSyntheticMarket(market, store.engine.market);
  const ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const org = (await createOrganization(ctx, "Bench")).organization.uuid;
  const account = (await createAccount(ctx, org, (await createClient(ctx, org, {})).uuid, { name: "Big" }))
    .uuid;
  const ids = market.securities.filter((s) => s.currency === "USD").map((s) => s.themeAssetId);
  await store.close();

  // The CSV, written as a stream (the bench's own memory stays small too).
  const csv = join(dir, "lots.csv");
  const out = createWriteStream(csv);
  out.write("Symbol,Quantity,Cost Basis,Open Date,Wash Sale Date\n");
  for (let i = 0; i < rows; i++) {
    const day = String((i % 28) + 1).padStart(2, "0");
    const ok = out.write(
      `${ids[i % ids.length]},${(i % 500) + 1}.5,${(i % 9973) + 100}.25,2023-${String((i % 12) + 1).padStart(2, "0")}-${day},${i % 50 === 0 ? `2024-01-${day}` : ""}\n`,
    );
    if (!ok) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  const bytes = statSync(csv).size;

  // The import, alone in a child process on the built package.
  const child = `
    const { createReadStream } = await import("node:fs");
    const { importLots } = await import(${JSON.stringify(dist)});
    const { openSqliteStore } = await import(${JSON.stringify(storeDist)});
    const store = openSqliteStore(${JSON.stringify(storePath)}, { create: false });
    const ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
    const t0 = process.hrtime.bigint();
    const r = await importLots(ctx, ${JSON.stringify(org)}, ${JSON.stringify(account)},
      createReadStream(${JSON.stringify(csv)}), { file_name: "lots.csv" });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    store.close();
    const u = process.resourceUsage();
    process.stdout.write(JSON.stringify({ ms, lotsAfter: r.lots_after, maxRssKiB: u.maxRSS,
      cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));
  `;
  const result = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8" }),
  ) as { ms: number; lotsAfter: number; maxRssKiB: number; cpuMs: number };
  if (result.lotsAfter !== rows) throw new Error(`imported ${result.lotsAfter} lots, expected ${rows}`);
  const peakMiB = result.maxRssKiB / 1024;
  console.log(`CSV: ${rows.toLocaleString("en-US")} lot rows, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
  console.log(
    line(`import ${rows.toLocaleString("en-US")} lots (parse + stage + commit)`, result.ms / 1000, "s"),
  );
  // On a shared machine the wall time includes waiting for a core; the CPU time is the process's own work.
  console.log(line("CPU time of the importing process (user + system)", result.cpuMs / 1000, "s"));
  console.log(line("peak RSS of the importing process", peakMiB, "MiB", { max: GOAL_MIB }));
  const path = writeResult("lots-import", {
    rows,
    csvBytes: bytes,
    seconds: result.ms / 1000,
    lotsPerSecond: Math.round(rows / (result.ms / 1000)),
    cpuSeconds: result.cpuMs / 1000,
    peakRssMiB: Math.round(peakMiB * 10) / 10,
    goalPeakRssMiB: GOAL_MIB,
    ok: peakMiB < GOAL_MIB,
  });
  console.log(`wrote ${path}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
