/**
 * @module service/weights-file
 * Target weights from a file's text, for endpoint 1 (`createProposal`): the CSV or JSON a portfolio engineer keeps
 * (issue 17, item 2: the parsing lives in the service so that the library reads weights files as the CLI does).
 */
import { CsvError, parse } from "csv-parse/sync";
import { Decimal } from "decimal.js";
import type { OptimizedWeight } from "../contract/index.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import { unreadableCsvError } from "./csv-errors.js";

/**
 * Target weights from a CSV (`ticker,weight` header; `symbol`/`theme_asset_id` and `target_weight` also accepted;
 * weights as fractions or with a % sign, "5%" = 0.05) or JSON (`{"optimized_weights": [...]}` or a bare array).
 * `source` names the file in errors; `json` forces JSON (else text starting with `{` or `[` is JSON).
 * The weights are checked by endpoint 1 (tickers resolved, sums), not here.
 * @throws {ValidationError} naming the line of a row without a ticker, or `malformed_body` for JSON that does not parse.
 * @example parseWeights("ticker,weight\nAAPL,60%\nMSFT,0.4\n", "w.csv") // [{ticker: "AAPL", weight: "0.6"}, ...]
 */
export function parseWeights(
  text: string,
  source: string,
  options: { json?: boolean } = {},
): OptimizedWeight[] {
  const start = text.trimStart();
  if (options.json === true || start.startsWith("{") || start.startsWith("[")) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new ValidationError(
        `${source} is not valid JSON: ${(err as Error).message}`,
        [{ path: source, message: "invalid JSON" }],
        "malformed_body",
      );
    }
    const list = Array.isArray(doc) ? doc : (doc as { optimized_weights?: unknown }).optimized_weights;
    if (!Array.isArray(list))
      throw new ValidationError(
        `${source}: expected {"optimized_weights": [...]} or an array of {ticker, weight}.`,
        [{ path: source, message: "no optimized_weights" }],
      );
    return list as OptimizedWeight[];
  }
  let rows: { record: Record<string, string>; info: { lines: number } }[];
  try {
    rows = parse(text, {
      columns: (h: string[]) => h.map((x) => x.trim().toLowerCase()),
      skip_empty_lines: true,
      bom: true,
      trim: true,
      info: true,
    }) as unknown as typeof rows;
  } catch (err) {
    if (err instanceof CsvError) throw unreadableCsvError(source, err);
    throw err;
  }
  const issues: FieldIssue[] = [];
  const out: OptimizedWeight[] = [];
  // Each row's line in the file (blank lines are skipped, so a row's index does not give it).
  rows.forEach(({ record: r, info }) => {
    const ticker = r.ticker ?? r.symbol ?? r.theme_asset_id ?? "";
    let weight = (r.weight ?? r.target_weight ?? "").replace(/\s/g, "");
    if (weight.endsWith("%")) {
      const v = weight.slice(0, -1);
      weight = /^-?\d+(\.\d+)?$/.test(v) ? new Decimal(v).div(100).toFixed() : weight;
    }
    if (!ticker)
      issues.push({ path: `${source}: line ${info.lines}`, message: "no ticker (columns: ticker,weight)" });
    else if (!/^-?(\d+\.?\d*|\.\d+)$/.test(weight))
      issues.push({
        path: `${source}: line ${info.lines}, weight`,
        message: `"${weight}" is not a weight (a fraction such as 0.05, or 5%)`,
      });
    else out.push({ ticker, weight });
  });
  if (issues.length > 0) throw new ValidationError(`${source}: ${issues.length} problem(s).`, issues);
  return out;
}

/**
 * A proposal request (endpoint 1) whose weights came as a file: `fields` (the other fields of a form) with
 * `optimized_weights` read from the file's text by {@link parseWeights} (a `.json` name is read as JSON), so that the
 * multipart `weights` part of `POST .../proposal/` gives the errors `lotwise proposal --weights-file` gives.
 * @throws {ValidationError} for weights given both as fields and as the file, or as {@link parseWeights} does
 */
export function proposalRequestWithWeightsFile(
  fields: Readonly<Record<string, unknown>>,
  file: { name: string; text: string },
): Record<string, unknown> {
  if (fields.optimized_weights !== undefined)
    throw new ValidationError("Give optimized_weights as the weights file or as form fields, not both.", [
      { path: "optimized_weights", message: "given as fields besides the weights file" },
    ]);
  const json = file.name.toLowerCase().endsWith(".json");
  return { ...fields, optimized_weights: parseWeights(file.text, file.name, { json }) };
}
