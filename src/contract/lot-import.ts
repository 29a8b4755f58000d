/**
 * @module contract/lot-import
 * The tax-lot CSV import (extension): its query parameters (the options of `lotwise lots import`) and its result,
 * a summary whose size does not grow with the file unless the full list of lots is asked for.
 */
import * as z from "zod";
import { CURRENCIES } from "../core/data/types.js";
import { expectedMessage, numericString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";
import { taxLotWriteSchema } from "./tax-lot.js";

/** Fields a lots CSV column can be mapped to (`--map FIELD=HEADER`, query `map_FIELD=HEADER`). */
export const LOT_IMPORT_FIELDS = [
  "symbol",
  "quantity",
  "cost_per_share",
  "total_cost",
  "trade_date",
  "currency",
  "fx_rate",
  "mic",
  "wash_sale_date",
  "last_sold_for_loss_date",
] as const;

/** Lots shown in the preview of a result. */
export const LOT_IMPORT_PREVIEW_LOTS = 20;

const flag = (what: string) =>
  describe(
    z.stringbool({ truthy: ["true"], falsy: ["false"], error: expectedMessage("true or false") }),
    what,
  ).optional();

const mapParams = Object.fromEntries(
  LOT_IMPORT_FIELDS.map((f) => [
    `map_${f}`,
    describe(
      z.string().min(1, { error: "must not be empty" }).max(200, { error: "must be at most 200 characters" }),
      `header of the ${f.replace(/_/g, " ")} column (instead of the recognized names)`,
    ).optional(),
  ]),
) as Record<`map_${(typeof LOT_IMPORT_FIELDS)[number]}`, z.ZodOptional<z.ZodString>>;

/** Query parameters of the lots import. */
export const lotImportQuerySchema = named(
  z.strictObject({
    mode: describe(
      z.enum(["replace", "append"], { error: expectedMessage("replace or append") }),
      "replace (default): the file's lots replace the account's; append: they are added after them",
    ).optional(),
    dry_run: flag("check and summarize without changing anything"),
    include_lots: flag("return every imported lot in `lots` (the summary alone otherwise)"),
    file_name: describe(
      z.string().min(1).max(255, { error: "must be at most 255 characters" }),
      "name of the file, used in messages",
    ).optional(),
    date_order: describe(
      z.enum(["auto", "mdy", "dmy", "ymd"], { error: expectedMessage("auto, mdy, dmy or ymd") }),
      "how to read 03/04/2024: auto (US month first unless impossible), mdy, dmy, ymd",
    ).optional(),
    currency: describe(
      z.enum(CURRENCIES, { error: expectedMessage(CURRENCIES.join(", ")) }),
      "currency of rows without one; default USD",
    ).optional(),
    mic: describe(
      z.string().regex(/^[A-Za-z0-9]{4}$/, { error: "a MIC is four letters or digits" }),
      "exchange of symbols without one, when a symbol is listed on several exchanges",
    ).optional(),
    ...mapParams,
  }),
  "LotImportQuery",
  "Query parameters of a tax-lot CSV import.",
);
/** Query of the lots import. */
export type LotImportQuery = z.infer<typeof lotImportQuerySchema>;

/** Totals of one asset of an import. */
export const lotImportTickerSchema = named(
  z.strictObject({
    theme_asset_id: z.string(),
    lots: z.int(),
    quantity: numericString(),
    total_cost_basis_usd: describe(
      numericString(),
      "sum of the lots' total cost basis / fx_rate, to the cent",
    ),
  }),
  "LotImportTicker",
  "Totals of one asset in a tax-lot import.",
);

/** Result of a lots import. */
export const lotImportResultSchema = named(
  z.strictObject({
    file: z.string(),
    account_uuid: uuid(),
    client_uuid: uuid(),
    mode: z.enum(["replace", "append"]),
    dry_run: z.boolean(),
    lots_in_file: z.int(),
    lots_before: describe(z.int(), "the account's lots before (as of the import's transaction)"),
    lots_after: describe(z.int(), "the account's lots after (would be, for a dry run)"),
    skipped_count: describe(z.int(), "lines skipped on purpose (blank symbol, totals, cash)"),
    skipped_rows: describe(
      z.array(z.strictObject({ line: z.int(), reason: z.string() })),
      "the skipped lines (the first 1000)",
    ),
    columns: describe(z.record(z.string(), z.string()), "header used for each field"),
    by_ticker: describe(z.array(lotImportTickerSchema), "totals per asset, in order of first appearance"),
    preview: describe(z.array(taxLotWriteSchema), `the first ${LOT_IMPORT_PREVIEW_LOTS} lots of the file`),
    lots: describe(z.array(taxLotWriteSchema), "every lot of the file, when include_lots=true").optional(),
  }),
  "LotImportResult",
  "Summary of a tax-lot CSV import (or dry run).",
);
/** Result of a lots import. */
export type LotImportResult = z.infer<typeof lotImportResultSchema>;

/**
 * A parsed query back as URL parameters (what the remote client sends; the local backend parses the same so that
 * both validate alike). Undefined fields are left out.
 */
export function lotImportQueryParams(query: LotImportQuery): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) out[k] = String(v);
  return out;
}
