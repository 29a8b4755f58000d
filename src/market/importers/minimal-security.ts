/**
 * @module market/importers/minimal-security
 * A security record with only its identity known, for listings a price file introduces and for tests.
 */
import type { Security } from "../../core/data/types.js";
import { DataError } from "../../core/errors.js";
import { MIC_DEFAULTS } from "./mic-defaults.js";
import { parseThemeAssetId } from "./symbol-resolver.js";

/**
 * A security with name = symbol, currency and country from the MIC, type equity and every other field null,
 * then `fields` applied on top.
 * @throws {RangeError} when `themeAssetId` is not `SYMBOL:MIC`.
 * @throws {DataError} when the MIC has no known currency/country and `fields` does not give both.
 * @example minimalSecurity("RY:XTSE").currency // "CAD"
 */
export function minimalSecurity(themeAssetId: string, fields: Partial<Security> = {}): Security {
  const id = parseThemeAssetId(themeAssetId);
  if (!id) throw new RangeError(`minimalSecurity: "${themeAssetId}" is not a theme_asset_id (SYMBOL:MIC)`);
  const defaults = MIC_DEFAULTS[id.mic];
  const currency = fields.currency ?? defaults?.currency;
  const country = fields.country ?? defaults?.country;
  if (currency === undefined || country === undefined)
    throw new DataError(
      `Cannot create a security for ${id.themeAssetId}: MIC ${id.mic} has no known currency and country. Import the security master for it first.`,
    );
  return {
    themeAssetId: id.themeAssetId,
    symbol: id.symbol,
    mic: id.mic,
    name: id.symbol,
    currency,
    country,
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
    ...fields,
  };
}
