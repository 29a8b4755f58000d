/**
 * Synthetic market generator: time to generate 500 securities x 10 years (median of 5 runs after a warm-up; goal
 * <= 5 s on the 2-core reference machine, aim < 1.5 s) and 5,000 securities x 30 years once (goal: completes
 * without running out of memory), with peak memory. Run: node --import tsx --expose-gc bench/market.bench.ts
 */
import { generateMarket } from "../src/market/synthetic/index.js";
import { line, stats, time, writeResult } from "./lib/harness.js";

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number) => bytes / 2 ** 20;

const small = await time(() => generateMarket({ seed: 1, securities: 500, years: 10 }), {
  runs: 5,
  warmup: 1,
});
const smallPricesOnly = await time(
  () => generateMarket({ seed: 1, securities: 500, years: 10, characteristics: false }),
  { runs: 5, warmup: 1 },
);
console.log(line("500 securities x 10 years (median)", small.medianMs, "ms", { max: 5000 }));
console.log(line("500 x 10 years, without characteristics (median)", smallPricesOnly.medianMs, "ms"));

gc?.();
const t0 = process.hrtime.bigint();
const big = generateMarket({ seed: 1, securities: 5000, years: 30 });
const bigMs = Number(process.hrtime.bigint() - t0) / 1e6;
const after = process.memoryUsage();
// maxRSS (KiB) is the process's high-water mark, which includes the generation itself.
const peakRss = process.resourceUsage().maxRSS * 1024;
const cells = big.prices.dates.length * big.prices.ids.length;
const large = stats([bigMs]);
console.log(line("5000 securities x 30 years (once)", bigMs, "ms"));
console.log(line("  price cells (dates x securities)", cells / 1e6, "M"));
console.log(line("  typed-array memory after generation", mib(after.arrayBuffers), "MiB"));
console.log(line("  peak resident set size", mib(peakRss), "MiB"));
console.log(
  `  ${big.splits.length} splits, ${big.dividends.length} dividends, ${big.characteristics.dates.length} month ends`,
);

const path = writeResult("market", {
  small: { securities: 500, years: 10, ...small, goalMaxMs: 5000 },
  smallWithoutCharacteristics: { securities: 500, years: 10, ...smallPricesOnly },
  large: {
    securities: 5000,
    years: 30,
    ...large,
    tradingDays: big.prices.dates.length,
    priceCells: cells,
    splits: big.splits.length,
    dividends: big.dividends.length,
    arrayBuffersMiB: Math.round(mib(after.arrayBuffers)),
    peakRssMiB: Math.round(mib(peakRss)),
  },
});
console.log(`wrote ${path}`);
