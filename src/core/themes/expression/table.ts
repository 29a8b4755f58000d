/**
 * @module core/themes/expression/table
 * Ready-made {@link ExpressionTable}s: from plain columns, and from the security master plus
 * characteristic columns (the table the themes evaluate universes and filters on).
 */
import type { Security } from "../../data/types.js";
import type { Column, ExpressionTable } from "./evaluate.js";

/**
 * A table over `size` rows from named columns (names matched case-insensitively).
 * @throws {RangeError} when a column's length differs from `size`.
 * @throws {TypeError} when `size` is not a non-negative integer or two names differ only by case.
 * @example createTable(2, { pe: Float64Array.of(12, 30), country: ["US", "CA"] })
 */
export function createTable(
  size: number,
  columns: ReadonlyMap<string, Column> | Readonly<Record<string, Column>>,
): ExpressionTable {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new TypeError(`createTable: size must be a non-negative integer, got ${String(size)}`);
  }
  const byName = new Map<string, Column>();
  const entries =
    columns instanceof Map ? [...columns.entries()] : Object.entries(columns as Record<string, Column>);
  for (const [raw, column] of entries) {
    const name = raw.toLowerCase();
    if (byName.has(name))
      throw new TypeError(`createTable: column '${raw}' is given twice (names ignore case)`);
    if (column.length !== size) {
      throw new RangeError(`createTable: column '${raw}' has ${column.length} rows, expected ${size}`);
    }
    byName.set(name, column);
  }
  return { size, column: (name) => byName.get(name) };
}

const codeOrNaN = (code: number | null): number => (code === null ? Number.NaN : code);

/**
 * The table of a list of securities, with the fields of `SECURITY_FIELDS` (see fields.ts) plus one
 * number column per characteristic (aligned with `securities`, NaN = missing). `exchange` is the MIC;
 * `industry_code` is the most specific known code (sub-industry, else industry, group, sector).
 * @throws {RangeError} when a characteristic column's length differs from the number of securities.
 * @throws {TypeError} when a characteristic name collides with a security field.
 */
export function securityTable(
  securities: readonly Security[],
  characteristics: ReadonlyMap<string, Float64Array> | Readonly<Record<string, Float64Array>> = new Map(),
): ExpressionTable {
  const n = securities.length;
  const text = (f: (s: Security) => string | null): (string | null)[] => securities.map(f);
  const numbers = (f: (s: Security) => number | null): Float64Array => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = codeOrNaN(f(securities[i]!));
    return out;
  };
  const columns = new Map<string, Column>([
    ["theme_asset_id", text((s) => s.themeAssetId)],
    ["symbol", text((s) => s.symbol)],
    ["exchange", text((s) => s.mic)],
    ["currency", text((s) => s.currency)],
    ["country", text((s) => s.country)],
    ["asset_type", text((s) => s.assetType)],
    ["sector", numbers((s) => s.sector)],
    ["industry_group", numbers((s) => s.industryGroup)],
    ["industry", numbers((s) => s.industry)],
    ["sub_industry", numbers((s) => s.subIndustry)],
    ["industry_code", numbers((s) => s.subIndustry ?? s.industry ?? s.industryGroup ?? s.sector)],
    ["sic_code", numbers((s) => s.sicCode)],
    ["shares_outstanding", numbers((s) => s.sharesOutstanding)],
  ]);
  const extra =
    characteristics instanceof Map
      ? [...characteristics.entries()]
      : Object.entries(characteristics as Record<string, Float64Array>);
  for (const [raw, column] of extra) {
    const name = raw.toLowerCase();
    if (columns.has(name)) {
      throw new TypeError(
        `securityTable: characteristic '${raw}' collides with the security field '${name}'`,
      );
    }
    if (!(column instanceof Float64Array) || column.length !== n) {
      throw new RangeError(`securityTable: characteristic '${raw}' must be a Float64Array of ${n} values`);
    }
    columns.set(name, column);
  }
  return createTable(n, columns);
}
