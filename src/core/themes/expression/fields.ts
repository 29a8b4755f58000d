/**
 * @module core/themes/expression/fields
 * Field types and the standard field catalog of securities (PRODUCT.md section 3; characteristic names
 * from the shared decisions). Callers may pass any catalog; these are the names the themes use.
 */

/**
 * Type of a field in a catalog:
 * - `number`: a float column (`Float64Array`, NaN = missing);
 * - `string`: a text column (`(string | null)[]`, null = missing), compared case-insensitively;
 * - `code`: an industry code column (`Float64Array` of integer codes of 2, 4, 6 or 8 digits, NaN = missing),
 *   compared by prefix so that a shorter code matches every code below it.
 */
export type FieldType = "number" | "string" | "code";

/** A field catalog: field name -> type. Names are matched case-insensitively. */
export type FieldCatalog = ReadonlyMap<string, FieldType> | Readonly<Record<string, FieldType>>;

/** The four taxonomy levels and the number of digits of their codes (shared decisions: 45, 4510, 451020, 45102010). */
export const CODE_FIELD_DIGITS: ReadonlyMap<string, number> = new Map([
  ["sector", 2],
  ["industry_group", 4],
  ["industry", 6],
  ["sub_industry", 8],
]);

/**
 * Fields every security has, from the security master:
 * `theme_asset_id`, `symbol`, `exchange` (the MIC, e.g. XNAS), `currency`, `country` (ISO alpha-2),
 * `asset_type` (equity, etf, index, fund) as strings; `sector`, `industry_group`, `industry`,
 * `sub_industry` and `industry_code` (the most specific known code, so it matches at any level) as codes;
 * `sic_code` and `shares_outstanding` as numbers.
 */
export const SECURITY_FIELDS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ["theme_asset_id", "string"],
  ["symbol", "string"],
  ["exchange", "string"],
  ["currency", "string"],
  ["country", "string"],
  ["asset_type", "string"],
  ["sector", "code"],
  ["industry_group", "code"],
  ["industry", "code"],
  ["sub_industry", "code"],
  ["industry_code", "code"],
  ["sic_code", "number"],
  ["shares_outstanding", "number"],
]);

/** Characteristic names fixed across lotwise (snake_case, fractions not percents). */
export const CHARACTERISTIC_NAMES: readonly string[] = Object.freeze([
  "market_cap",
  "dividend_yield",
  "pe",
  "pb",
  "ps",
  "eps",
  "ebitda",
  "profitability",
  "growth",
  "momentum",
  "volatility",
  "beta",
  "book_to_price",
  "earnings_yield",
]);

/**
 * The catalog of securities: {@link SECURITY_FIELDS} plus one `number` field per characteristic.
 * @param characteristics characteristic names present in the store. @default CHARACTERISTIC_NAMES
 * @throws {TypeError} when a characteristic name collides with a security field.
 * @example fieldCatalog(["market_cap", "dividend_yield"]).get("dividend_yield") // "number"
 */
export function fieldCatalog(
  characteristics: Iterable<string> = CHARACTERISTIC_NAMES,
): Map<string, FieldType> {
  const catalog = new Map<string, FieldType>(SECURITY_FIELDS);
  for (const raw of characteristics) {
    const name = raw.toLowerCase();
    if (SECURITY_FIELDS.has(name)) {
      throw new TypeError(`fieldCatalog: characteristic '${raw}' collides with the security field '${name}'`);
    }
    catalog.set(name, "number");
  }
  return catalog;
}
