/**
 * @module service/corporate-actions-csv
 * Reading the corporate-actions CSV (docs/ledger.md, section 8): one row per action, a header naming the columns
 * (any order, case and punctuation ignored), the kind's parameters in their own columns. Every row is checked and
 * every problem reported as `FILE: line N, column "X": message`; nothing is returned unless the whole file is valid.
 * Listings are resolved by the caller (service/corporate-actions.ts).
 */
import { parse } from "csv-parse/sync";
import { CORPORATE_ACTION_KINDS } from "../contract/corporate-action.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import { TaxDecimal } from "../core/tax/index.js";
import { parseLotDate, parseLotNumber } from "./lots-csv.js";

/** Columns of the layout, in the documented order. */
export const ACTION_CSV_COLUMNS = [
  "id",
  "kind",
  "listing",
  "ex_date",
  "pay_date",
  "ratio",
  "new_listing",
  "basis_fraction",
  "parent_price",
  "new_listing_price",
  "cash_per_share",
  "cash_in_lieu_price",
  "fx_rate",
] as const;
export type ActionCsvColumn = (typeof ACTION_CSV_COLUMNS)[number];

/** Header synonyms (compared lower-case, letters and digits only). */
const SYNONYMS: Readonly<Record<ActionCsvColumn, readonly string[]>> = {
  id: ["id", "actionid"],
  kind: ["kind", "type", "actiontype"],
  listing: ["listing", "symbol", "themeassetid", "parent", "ticker"],
  ex_date: ["exdate", "date", "effectivedate"],
  pay_date: ["paydate", "paymentdate"],
  ratio: ["ratio", "distributionratio", "splitratio"],
  new_listing: ["newlisting", "childlisting", "child", "acquirer", "newsymbol"],
  basis_fraction: ["basisfraction", "allocationfraction", "childbasisfraction"],
  parent_price: ["parentprice"],
  new_listing_price: ["newlistingprice", "childprice", "acquirerprice"],
  cash_per_share: ["cashpershare", "amountpershare", "dividend", "amount"],
  cash_in_lieu_price: ["cashinlieuprice"],
  fx_rate: ["fxrate"],
};

/** Columns each kind needs (besides id, kind, listing, ex_date), and those it may use. */
const KIND_COLUMNS: Readonly<
  Record<
    (typeof CORPORATE_ACTION_KINDS)[number],
    { required: ActionCsvColumn[]; optional: ActionCsvColumn[] }
  >
> = {
  split: { required: ["ratio"], optional: [] },
  cash_dividend: { required: ["cash_per_share"], optional: ["pay_date", "fx_rate"] },
  spin_off: {
    required: ["ratio", "new_listing"],
    optional: ["basis_fraction", "parent_price", "new_listing_price", "cash_in_lieu_price", "fx_rate"],
  },
  symbol_change: { required: ["new_listing"], optional: [] },
  cash_merger: { required: ["cash_per_share"], optional: ["fx_rate"] },
  stock_merger: {
    required: ["ratio", "new_listing"],
    optional: ["cash_per_share", "new_listing_price", "fx_rate"],
  },
};

/** One action as read, listings not yet resolved. */
export interface ParsedActionRow {
  line: number;
  id: string;
  kind: (typeof CORPORATE_ACTION_KINDS)[number];
  listing: string;
  exDate: string;
  payDate: string | null;
  /** The new listing (child, new symbol, acquirer), unresolved; null for other kinds. */
  newListing: string | null;
  /** The core's parameters except the new listing's id (set once resolved): decimal strings. */
  params: Record<string, unknown>;
}

const norm = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");

/** A ratio: `2`, `1.5`, `3:2` or `3/2` (new per old) -> the core's split ratio / decimal string, or null. */
export function parseRatio(text: string): string | { numerator: string; denominator: string } | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*[:/]\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (m) return { numerator: m[1]!, denominator: m[2]! };
  return parseLotNumber(text);
}

/**
 * Reads a corporate-actions CSV. @throws {ValidationError} (code `invalid_actions_file`) naming the line and column
 * of every problem: missing columns, unknown kind, bad dates and numbers, a parameter missing or not used by the
 * kind, a duplicated id. Nothing is returned unless every row is valid.
 */
export function parseCorporateActionsCsv(
  text: string | Uint8Array,
  fileName = "actions.csv",
): ParsedActionRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(typeof text === "string" ? text : Buffer.from(text), {
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      info: true,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    throw new ValidationError(
      `${fileName} is not a readable CSV file: ${(err as Error).message}`,
      [{ path: fileName, message: (err as Error).message }],
      "invalid_actions_file",
    );
  }
  const issues: FieldIssue[] = [];
  const fail = (message: string): never => {
    throw new ValidationError(message, issues, "invalid_actions_file");
  };
  if (records.length === 0) {
    issues.push({ path: fileName, message: "empty: expected a header and one row per action" });
    fail(`${fileName}: no header row.`);
  }
  const header = records[0]!.record;
  const index = new Map<ActionCsvColumn, number>();
  header.forEach((h, i) => {
    const n = norm(h);
    for (const c of ACTION_CSV_COLUMNS) if (!index.has(c) && SYNONYMS[c].includes(n)) index.set(c, i);
  });
  for (const c of ["id", "kind", "listing", "ex_date"] as const)
    if (!index.has(c)) issues.push({ path: `${fileName}: header`, message: `no ${c} column` });
  if (issues.length > 0) fail(`${fileName}: the header lacks required columns; nothing was imported.`);

  const rows: ParsedActionRow[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of records.slice(1)) {
    const line = info.lines;
    const cell = (c: ActionCsvColumn) => (index.has(c) ? (record[index.get(c)!] ?? "").trim() : "");
    const at = (c: ActionCsvColumn) =>
      `${fileName}: line ${line}, column "${index.has(c) ? header[index.get(c)!] : c}"`;
    const before = issues.length;
    const id = cell("id");
    if (id === "" || id.length > 200 || /\s/.test(id))
      issues.push({ path: at("id"), message: `"${id}" is not an action id (1-200 characters, no spaces)` });
    else if (seen.has(id))
      issues.push({ path: at("id"), message: `id ${id} is already used on line ${seen.get(id)}` });
    else seen.set(id, line);
    const kindText = cell("kind").toLowerCase();
    const kind = (CORPORATE_ACTION_KINDS as readonly string[]).includes(kindText)
      ? (kindText as ParsedActionRow["kind"])
      : null;
    if (kind === null)
      issues.push({
        path: at("kind"),
        message: `"${cell("kind")}" is not a kind; expected one of ${CORPORATE_ACTION_KINDS.join(", ")}`,
      });
    const listing = cell("listing");
    if (listing === "")
      issues.push({ path: at("listing"), message: "a listing (symbol or SYMBOL:MIC) is required" });
    const exDate = parseLotDate(cell("ex_date"), "auto");
    if (exDate === null)
      issues.push({ path: at("ex_date"), message: `"${cell("ex_date")}" is not a date (YYYY-MM-DD)` });
    if (kind === null) continue;

    const spec = KIND_COLUMNS[kind];
    for (const c of spec.required)
      if (cell(c) === "") issues.push({ path: at(c), message: `a ${kind} needs ${c}` });
    const used = new Set<ActionCsvColumn>([
      "id",
      "kind",
      "listing",
      "ex_date",
      ...spec.required,
      ...spec.optional,
    ]);
    for (const c of ACTION_CSV_COLUMNS)
      if (!used.has(c) && cell(c) !== "")
        issues.push({ path: at(c), message: `a ${kind} takes no ${c} (got "${cell(c)}")` });

    const num = (
      c: ActionCsvColumn,
      rule: "positive" | "fraction" | "non_negative" = "positive",
    ): string | null => {
      const t = cell(c);
      if (t === "") return null;
      const v = parseLotNumber(t);
      const d = v === null ? null : new TaxDecimal(v);
      const ok =
        d !== null &&
        (rule === "positive" ? d.gt(0) : rule === "non_negative" ? d.gte(0) : d.gt(0) && d.lt(1));
      if (!ok) {
        const want =
          rule === "positive"
            ? "above 0"
            : rule === "non_negative"
              ? "0 or more"
              : "strictly between 0 and 1";
        issues.push({ path: at(c), message: `must be a number ${want}, got "${t}"` });
        return null;
      }
      return v;
    };
    let payDate: string | null = null;
    if (cell("pay_date") !== "") {
      payDate = parseLotDate(cell("pay_date"), "auto");
      if (payDate === null)
        issues.push({ path: at("pay_date"), message: `"${cell("pay_date")}" is not a date (YYYY-MM-DD)` });
      else if (exDate !== null && payDate < exDate)
        issues.push({ path: at("pay_date"), message: `${payDate} is before the ex-date ${exDate}` });
    }
    const params: Record<string, unknown> = {};
    const fx = num("fx_rate");
    if (fx !== null) params.fxRate = fx;
    switch (kind) {
      case "split": {
        const r = cell("ratio") === "" ? null : parseRatio(cell("ratio"));
        const bad =
          r === null ||
          (typeof r === "string"
            ? !new TaxDecimal(r).gt(0)
            : !new TaxDecimal(r.numerator).gt(0) || !new TaxDecimal(r.denominator).gt(0));
        if (cell("ratio") !== "" && bad)
          issues.push({
            path: at("ratio"),
            message: `"${cell("ratio")}" is not a ratio above 0 (2, 1.5 or 3:2)`,
          });
        else if (r !== null) params.ratio = r;
        break;
      }
      case "cash_dividend": {
        const a = num("cash_per_share");
        if (a !== null) params.amountPerShare = a;
        break;
      }
      case "spin_off": {
        const r = num("ratio");
        if (r !== null) params.distributionRatio = r;
        const f = num("basis_fraction", "fraction");
        const pp = num("parent_price");
        const cp = num("new_listing_price");
        if (f !== null) params.basisFraction = f;
        else if (cell("basis_fraction") === "") {
          if (pp === null || cp === null)
            issues.push({
              path: at("basis_fraction"),
              message:
                "a spin_off needs basis_fraction (the announced allocation) or parent_price and new_listing_price",
            });
        }
        if (pp !== null) params.parentPrice = pp;
        if (cp !== null) params.childPrice = cp;
        const cil = num("cash_in_lieu_price");
        if (cil !== null) params.cashInLieu = { price: cil };
        break;
      }
      case "symbol_change":
        break;
      case "cash_merger": {
        const c = num("cash_per_share");
        if (c !== null) params.cashPerShare = c;
        break;
      }
      case "stock_merger": {
        const r = num("ratio");
        if (r !== null) params.ratio = r;
        const c = num("cash_per_share", "non_negative");
        if (c !== null) params.cashPerShare = c;
        const p = num("new_listing_price");
        if (p !== null) params.acquirerPrice = p;
        if (c !== null && new TaxDecimal(c).gt(0) && p === null)
          issues.push({
            path: at("new_listing_price"),
            message: "a stock_merger with cash needs the acquirer's price",
          });
        break;
      }
    }
    if (issues.length > before || exDate === null) continue;
    rows.push({
      line,
      id,
      kind,
      listing,
      exDate,
      payDate,
      newListing: spec.required.includes("new_listing") ? cell("new_listing") : null,
      params,
    });
  }
  if (issues.length > 0) fail(`${fileName}: ${issues.length} problem(s); nothing was imported.`);
  if (rows.length === 0) {
    issues.push({ path: fileName, message: "no action rows below the header" });
    fail(`${fileName}: no action rows.`);
  }
  return rows;
}
