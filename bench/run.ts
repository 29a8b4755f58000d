/**
 * Runs every bench/*.bench.ts in its own process (so one benchmark's heap and JIT state do not leak into
 * the next), in name order. Pass names to run a subset: `npm run bench -- optimizer market`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n=== ${f} ===\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", join(here, f)], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
