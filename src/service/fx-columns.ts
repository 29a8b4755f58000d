/**
 * @module service/fx-columns
 * FX columns for return panels: for each non-USD currency, its units per USD on each date of a panel, the last rate
 * dated on or before the date (rates published on days without a close count from the next date on). One builder
 * for the optimizer's risk history, the account backtester and the theme backtest (issue 17, item 2).
 */
import type { Currency } from "../core/data/types.js";
import type { AsyncMarketRepository } from "../store/index.js";

type FxReads = Pick<AsyncMarketRepository, "fxRateAsOf" | "fxSeries">;

/**
 * Units of each currency per USD on each of `dates` (ascending), carried forward from the last rate on or before
 * the first date; NaN before any rate. USD is not in the map (it is 1).
 * @example (await fxColumns(store.market, ["CAD"], dates)).get("CAD")![t] // 1.3512
 */
export async function fxColumns(
  market: FxReads,
  currencies: Iterable<Currency>,
  dates: readonly string[],
): Promise<Map<Currency, Float64Array>> {
  const out = new Map<Currency, Float64Array>();
  if (dates.length === 0) return out;
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  for (const currency of new Set(currencies)) {
    if (currency === "USD" || out.has(currency)) continue;
    const series = await market.fxSeries(currency, first, last);
    const column = new Float64Array(dates.length).fill(Number.NaN);
    let current = (await market.fxRateAsOf(currency, first))?.perUsd ?? Number.NaN;
    let k = 0;
    for (let t = 0; t < dates.length; t++) {
      while (k < series.length && series[k]!.date <= dates[t]!) current = series[k++]!.perUsd;
      column[t] = current;
    }
    out.set(currency, column);
  }
  return out;
}
