/**
 * @module test/helpers/listing
 * A security-master record for hand-made markets in tests: the importers' minimal record (currency and country
 * from the MIC: `listing("AAA:XNYS")` a US equity in USD, `listing("DDD:XTSE")` a Canadian one in CAD) named
 * "SYMBOL Inc."; `overrides` sets anything else (sector, name...).
 */
import type { Security } from "../../src/core/data/types.js";
import { minimalSecurity } from "../../src/market/importers/minimal-security.js";

export function listing(themeAssetId: string, overrides: Partial<Security> = {}): Security {
  return minimalSecurity(themeAssetId, { name: `${themeAssetId.split(":")[0]} Inc.`, ...overrides });
}
