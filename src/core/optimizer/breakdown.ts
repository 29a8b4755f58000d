/**
 * @module core/optimizer/breakdown
 * How a diagnosis names what a sum is made of: the contributions per asset grouped by the constraint that sets
 * them ("min_weight 0.02 x 80 assets = 1.6"). Used by diagnose.ts and by the constraint components' prechecks.
 */

export const fmt = (v: number) =>
  Math.abs(v) >= 1e-4 || v === 0 ? Number(v.toPrecision(6)).toString() : v.toExponential(3);

/** The field a bound's source names (its first word), to group contributions. */
function sourceKey(source: string): string {
  const m = /^([a-z_]+)(?: ([-\d.e]+))?/.exec(source);
  if (m === null) return source;
  return m[2] !== undefined && (m[1] === "min_weight" || m[1] === "max_weight") ? `${m[1]} ${m[2]}` : m[1]!;
}

/** "min_weight 0.02 x 80 assets = 1.6, no_trade_tickers on 2 assets = 0.1" for the given values per asset. */
export function breakdown(
  values: Float64Array,
  sources: readonly string[],
  pick: (i: number) => boolean,
): string {
  const groups = new Map<string, { count: number; sum: number; each: number | null }>();
  for (let i = 0; i < values.length; i++) {
    if (!pick(i)) continue;
    const key = sourceKey(sources[i]!);
    const g = groups.get(key) ?? { count: 0, sum: 0, each: values[i]! };
    g.count++;
    g.sum += values[i]!;
    if (g.each !== null && Math.abs(g.each - values[i]!) > 1e-12) g.each = null;
    groups.set(key, g);
  }
  return [...groups.entries()]
    .sort((a, b) => Math.abs(b[1].sum) - Math.abs(a[1].sum))
    .map(([k, g]) =>
      g.each !== null && g.count > 1
        ? `${k}${k.includes(" ") ? "" : ` ${fmt(g.each)}`} x ${g.count} assets = ${fmt(g.sum)}`
        : `${k} on ${g.count} asset${g.count > 1 ? "s" : ""} = ${fmt(g.sum)}`,
    )
    .join(", ");
}
