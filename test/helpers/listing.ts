/**
 * @module test/helpers/listing
 * A security-master record for hand-made markets in tests: `listing("AAA:XNYS")` is a US equity in USD,
 * `listing("DDD:XTSE")` a Canadian one in CAD; `overrides` sets anything else (sector, name...).
 */
import type { Security } from "../../src/core/data/types.js";

export function listing(themeAssetId: string, overrides: Partial<Security> = {}): Security {
  const [symbol, mic] = themeAssetId.split(":") as [string, string];
  const canadian = mic === "XTSE";
  return {
    themeAssetId,
    symbol,
    mic,
    name: `${symbol} Inc.`,
    currency: canadian ? "CAD" : "USD",
    country: canadian ? "CA" : "US",
    assetType: "equity",
    sector: null,
    industryGroup: null,
    industry: null,
    subIndustry: null,
    sicCode: null,
    sharesOutstanding: null,
    description: null,
    listedFrom: null,
    delistedOn: null,
    ...overrides,
  };
}
