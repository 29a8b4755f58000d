/**
 * @module test/helpers/hand-market
 * The hand market of the drift and scan tests, small enough to compute every figure by hand, and their
 * two-sleeve configuration.
 */

import type { PortfolioConfigCreate } from "../../src/contract/index.js";
import { createAssetClass } from "../../src/service/asset-classes.js";
import type { ServiceContext } from "../../src/service/context.js";
import { createPortfolioConfig } from "../../src/service/portfolio-configs.js";
import type { Store } from "../../src/store/index.js";
import { listing } from "./listing.js";

/**
 * A hand market: AAA, BBB, CCC (USD) and DDD on the TSX (CAD, 1.25 per USD); index HAND3 weighs AAA 50%, BBB 30%,
 * CCC 20%. Closes on 2025-06-30: AAA 110, BBB 40, CCC 25, DDD 30 CAD (24 USD).
 */
const security = (id: string) => listing(id, { sector: 45 });

export function writeHandMarket(store: Store): void {
  const m = store.market;
  m.upsertSecurities(["AAA:XNYS", "BBB:XNYS", "CCC:XNYS", "DDD:XTSE"].map(security));
  const closes: Record<string, [number, number]> = {
    "AAA:XNYS": [100, 110],
    "BBB:XNYS": [50, 40],
    "CCC:XNYS": [20, 25],
    "DDD:XTSE": [30, 30],
  };
  m.insertPrices(
    Object.entries(closes).flatMap(([id, [a, b]]) =>
      [
        ["2025-06-02", a],
        ["2025-06-30", b],
      ].map(([date, close]) => ({
        themeAssetId: id,
        date: date as string,
        open: null,
        high: null,
        low: null,
        close: close as number,
        adjClose: null,
        volume: null,
      })),
    ),
  );
  m.insertFx([
    { date: "2025-06-02", currency: "CAD", perUsd: 1.25 },
    { date: "2025-06-30", currency: "CAD", perUsd: 1.25 },
  ]);
  m.upsertIndex({ identifier: "HAND3", name: "Hand three", currency: "USD", description: null });
  m.insertIndexWeights([
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "AAA:XNYS", weight: 0.5 },
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "BBB:XNYS", weight: 0.3 },
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "CCC:XNYS", weight: 0.2 },
  ]);
}

/**
 * The two-sleeve configuration of the hand market's tests: 90% HAND3 + 10% DDD:XTSE, drift thresholds 0.1 / 0.25 /
 * asset 0.2, plus `extra` fields. Answers its uuid.
 */
export async function createTwoSleeveConfig(
  ctx: ServiceContext,
  org: string,
  extra: Partial<PortfolioConfigCreate> = {},
): Promise<string> {
  const core = await createAssetClass(ctx, org, { name: "Core", benchmark_index_identifier: "HAND3" });
  const canada = await createAssetClass(ctx, org, {
    name: "DDD sleeve",
    single_security_theme_asset_id: "DDD:XTSE",
  });
  return (
    await createPortfolioConfig(ctx, org, {
      name: "Two sleeves",
      asset_allocations: [
        { asset_class_uuid: core.uuid, target_allocation: "0.9" },
        { asset_class_uuid: canada.uuid, target_allocation: "0.1" },
      ],
      drift_warning_threshold: "0.1",
      drift_breach_threshold: "0.25",
      asset_drift_breach_threshold: "0.2",
      ...extra,
    })
  ).uuid;
}
