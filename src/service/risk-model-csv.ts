/**
 * @module service/risk-model-csv
 * Reading the CSV files of a risk model into the records of the import body (`RiskModelImport`): the one parser of
 * `lotwise risk-models import` (which reads the files) and of the multipart upload of `POST .../risk_models/` (whose
 * file parts arrive as text), so both give the same body and the same errors. It works on file texts with their
 * names (no file system). Long files carry one number a row (`asset,factor,exposure`, `factor1,factor2,covariance`,
 * `asset,specific_risk`); wide ones a matrix (`asset,<factor>,<factor>...` for exposures; a square matrix with a
 * header row of names and the same names down the first column for a covariance). Headers are matched without case.
 * Every bad cell is reported with its file, line and column, and nothing is returned unless the whole file is valid.
 */
import { CsvError, parse } from "csv-parse/sync";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import { unreadableCsvError } from "./csv-errors.js";

/** A number as files write it: decimal or scientific; anything else (empty, NaN, 1,5, 12%) is refused. */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Rows of a CSV file as arrays of trimmed cells, with the file name for messages. */
interface Sheet {
  file: string;
  /** Header cells lower-cased (to find columns). */
  header: string[];
  /** Header cells as written (factor and asset names are case-sensitive). */
  names: string[];
  /** Data rows with their 1-based line numbers. */
  rows: { line: number; cells: string[] }[];
}

/** The text of one CSV file and the name errors call it by (a file name, without folders). */
export interface CsvText {
  name: string;
  text: string;
}

function readSheet({ name: file, text }: CsvText): Sheet {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    if (err instanceof CsvError) throw unreadableCsvError(file, err);
    throw err;
  }
  if (records.length === 0)
    throw new ValidationError(`${file} is empty: it needs a header row and data rows.`, [
      { path: file, message: "empty file" },
    ]);
  const [head, ...rest] = records;
  return {
    file,
    header: head!.record.map((h) => h.toLowerCase()),
    names: head!.record,
    rows: rest.map((r) => ({ line: r.info.lines, cells: r.record })),
  };
}

/** Collects cell problems of one file; `done()` throws them all at once. */
class Problems {
  readonly issues: FieldIssue[] = [];
  constructor(readonly sheet: Sheet) {}
  add(line: number, column: string, message: string): void {
    this.issues.push({ path: `${this.sheet.file}: line ${line}, ${column}`, message });
  }
  number(line: number, column: string, cell: string | undefined): number {
    if (cell === undefined || !NUMBER.test(cell)) {
      this.add(line, column, `expected a number, got "${cell ?? ""}"`);
      return Number.NaN;
    }
    return Number(cell);
  }
  done(): void {
    if (this.issues.length > 0)
      throw new ValidationError(
        `${this.sheet.file}: ${this.issues.length} problem(s); nothing was imported.`,
        this.issues,
      );
  }
}

/** Index of the first header among `names`, or -1. */
function column(sheet: Sheet, ...names: string[]): number {
  return sheet.header.findIndex((h) => names.includes(h));
}

function requireColumns(sheet: Sheet, expected: string): never {
  throw new ValidationError(
    `${sheet.file}: unrecognized header "${sheet.header.join(",")}"; expected ${expected}.`,
    [{ path: sheet.file, message: `header must be ${expected}` }],
  );
}

/**
 * Exposures as `{asset: {factor: exposure}}`: a long file (`asset,factor,exposure`) or a wide one (`asset` then one
 * column per factor; an empty cell is no exposure, i.e. 0).
 */
export function readExposuresCsv(file: CsvText): Record<string, Record<string, number>> {
  const sheet = readSheet(file);
  const p = new Problems(sheet);
  const out: Record<string, Record<string, number>> = {};
  const put = (line: number, asset: string, factor: string, value: number) => {
    if (!asset || !factor) return p.add(line, asset ? "factor" : "asset", "empty name");
    out[asset] ??= {};
    if (factor in out[asset]!) p.add(line, "exposure", `a second exposure of ${asset} to ${factor}`);
    out[asset]![factor] = value;
  };
  const a = column(sheet, "asset", "theme_asset_id");
  const f = column(sheet, "factor");
  const x = column(sheet, "exposure");
  if (a >= 0 && f >= 0 && x >= 0) {
    for (const { line, cells } of sheet.rows)
      put(line, cells[a] ?? "", cells[f] ?? "", p.number(line, "exposure", cells[x]));
  } else if (a === 0 && sheet.header.length >= 2) {
    // Wide: the other headers are the factor names; an empty cell is no exposure.
    const factors = sheet.names.slice(1);
    for (const { line, cells } of sheet.rows)
      factors.forEach((factor, j) => {
        const cell = cells[j + 1];
        if (cell !== undefined && cell !== "")
          put(line, cells[0] ?? "", factor, p.number(line, factor, cell));
      });
  } else requireColumns(sheet, "asset,factor,exposure (long) or asset,<factor>,<factor>,... (wide)");
  p.done();
  return out;
}

/** A square matrix file: names across the header (after the first cell) and down the first column, same order. */
function readSquare(sheet: Sheet): { names: string[]; matrix: number[][] } {
  const names = sheet.names.slice(1);
  const p = new Problems(sheet);
  if (sheet.rows.length !== names.length)
    p.add(
      sheet.rows.at(-1)?.line ?? 1,
      "rows",
      `${sheet.rows.length} rows for ${names.length} names in the header: a covariance is square`,
    );
  const matrix = sheet.rows.map(({ line, cells }, i) => {
    if (cells[0] !== names[i])
      p.add(line, "first column", `row ${i + 1} is "${cells[0]}" but column ${i + 1} is "${names[i] ?? ""}"`);
    if (cells.length !== names.length + 1)
      p.add(line, "cells", `${cells.length - 1} values for ${names.length} columns`);
    return names.map((name, j) => p.number(line, name, cells[j + 1]));
  });
  p.done();
  return { names, matrix };
}

/**
 * A factor covariance as `{factor1: {factor2: covariance}}`: long (`factor1,factor2,covariance`, one triangle
 * suffices) or a square matrix with factor names across and down.
 */
export function readFactorCovarianceCsv(file: CsvText): Record<string, Record<string, number>> {
  const sheet = readSheet(file);
  const f1 = column(sheet, "factor1", "factor_1");
  const f2 = column(sheet, "factor2", "factor_2");
  const c = column(sheet, "covariance");
  const out: Record<string, Record<string, number>> = {};
  if (f1 >= 0 && f2 >= 0 && c >= 0) {
    const p = new Problems(sheet);
    for (const { line, cells } of sheet.rows) {
      const value = p.number(line, "covariance", cells[c]);
      const [x, y] = [cells[f1] ?? "", cells[f2] ?? ""];
      if (!x || !y) p.add(line, "factor1/factor2", "empty factor name");
      else if (y in (out[x] ?? {})) p.add(line, "covariance", `a second entry for (${x}, ${y})`);
      else {
        out[x] ??= {};
        out[x]![y] = value;
      }
    }
    p.done();
    return out;
  }
  const { names, matrix } = readSquare(sheet);
  names.forEach((name, i) => {
    out[name] = Object.fromEntries(names.map((other, j) => [other, matrix[i]![j]!]));
  });
  return out;
}

/**
 * How a caller names the three files of a model in its messages, and the error code of a wrong combination of
 * files: the parts of the HTTP upload ({@link UPLOAD_FILE_NAMING}) or the flags of the CLI.
 */
export interface RiskModelFileNaming {
  exposures: string;
  covariance: string;
  specific_risk: string;
  /** How to say "the kind" (`kind vendor` in a form, `--kind vendor` on the command line). */
  kind: string;
  /** Code of an error about which files were given (`usage` for the CLI). */
  code: string;
}

/** The names of the multipart upload of `POST .../risk_models/`: its file parts and form fields. */
export const UPLOAD_FILE_NAMING: RiskModelFileNaming = {
  exposures: "the exposures file",
  covariance: "the covariance file",
  specific_risk: "the specific_risk file",
  kind: "kind",
  code: "validation_error",
};

/** A square asset covariance (custom models): assets across the header and down the first column. */
export function readAssetCovarianceCsv(
  file: CsvText,
  naming: RiskModelFileNaming = UPLOAD_FILE_NAMING,
): { assets: string[]; covariance: number[][] } {
  const sheet = readSheet(file);
  if (column(sheet, "factor1", "factor_1") >= 0 || column(sheet, "covariance") >= 0)
    throw new ValidationError(
      `${sheet.file} looks like a factor covariance (factor1,factor2,covariance); alone, ${naming.covariance} of a custom model is a square asset covariance (a header of asset ids, the same ids down the first column). Give ${naming.exposures} and ${naming.specific_risk} too for a factor model.`,
      [{ path: sheet.file, message: "not a square asset covariance" }],
      naming.code,
    );
  const { names, matrix } = readSquare(sheet);
  return { assets: names, covariance: matrix };
}

/**
 * Specific risk by asset: `asset,specific_risk` (volatilities) or `asset,specific_variance` (variances); the kind
 * says which column the file had.
 */
export function readSpecificRiskCsv(file: CsvText): {
  values: Record<string, number>;
  kind: "volatility" | "variance";
} {
  const sheet = readSheet(file);
  const a = column(sheet, "asset", "theme_asset_id");
  const vol = column(sheet, "specific_risk", "specific_volatility");
  const variance = column(sheet, "specific_variance");
  const v = vol >= 0 ? vol : variance;
  if (a < 0 || v < 0) requireColumns(sheet, "asset,specific_risk or asset,specific_variance");
  const p = new Problems(sheet);
  const values: Record<string, number> = {};
  for (const { line, cells } of sheet.rows) {
    const value = p.number(line, sheet.header[v]!, cells[v]);
    if (!cells[a]) p.add(line, "asset", "empty asset");
    else if (cells[a]! in values) p.add(line, "asset", `${cells[a]} appears twice`);
    else values[cells[a]!] = value;
  }
  p.done();
  return { values, kind: vol >= 0 ? "volatility" : "variance" };
}

/** The files of a model, by the name of their part in the upload (and of their CLI flag). */
export const RISK_MODEL_FILE_PARTS = ["exposures", "covariance", "specific_risk"] as const;
/** The files of a model: each is optional here; which ones a model needs depends on its kind. */
export type RiskModelFiles = Partial<Record<(typeof RISK_MODEL_FILE_PARTS)[number], CsvText>>;

/** Body fields the files fill (a field and a file for the same numbers are refused). */
export const RISK_MODEL_FILE_FIELDS: readonly string[] = [
  "exposures",
  "factor_covariance",
  "specific_risk",
  "specific_risk_kind",
  "specific_variance",
  "assets",
  "covariance",
];

/**
 * The import body of a risk model from its other fields (kind, name, as_of_date, frequency, units...) and its CSV
 * files: a factor model from `exposures`, `covariance` (the factor covariance) and `specific_risk`; or, for a
 * custom model, `covariance` alone as a square asset covariance. Without files, `fields` is returned unchanged. The
 * body is then validated by the import (riskModelImportSchema), exactly as a JSON body is.
 * @throws {ValidationError} naming the file, line and column of every bad cell, or the files missing for the kind
 * @example riskModelImportFromCsv({ kind: "custom", name: "House", as_of_date: "2025-12-31" }, { covariance: { name: "cov.csv", text } })
 */
export function riskModelImportFromCsv(
  fields: Readonly<Record<string, unknown>>,
  files: RiskModelFiles,
  naming: RiskModelFileNaming = UPLOAD_FILE_NAMING,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fields };
  const { exposures, covariance, specific_risk: specific } = files;
  if (!exposures && !covariance && !specific) return body;
  const kind = body.kind;
  if (kind !== "vendor" && kind !== "custom")
    throw new ValidationError(
      `Give ${naming.kind} vendor (exposures, factor covariance, specific risk) or ${naming.kind} custom.`,
      [{ path: "kind", message: 'expected "vendor" or "custom"' }],
      naming.code,
    );
  const both = RISK_MODEL_FILE_FIELDS.filter((f) => body[f] !== undefined);
  if (both.length > 0)
    throw new ValidationError(
      `Give the model's numbers as files or as fields, not both (${both.join(", ")} given as fields).`,
      both.map((path) => ({ path, message: "given as a field besides the files" })),
    );
  if (kind === "custom" && covariance && !exposures && !specific)
    return Object.assign(body, readAssetCovarianceCsv(covariance, naming));
  const missing = RISK_MODEL_FILE_PARTS.filter((part) => !files[part]);
  if (missing.length > 0)
    throw new ValidationError(
      `A factor model needs ${naming.exposures}, ${naming.covariance} and ${naming.specific_risk}${kind === "custom" ? ` (or ${naming.covariance} alone: a square asset covariance)` : ""}.`,
      missing.map((path) => ({ path, message: "file missing" })),
      naming.code,
    );
  // Every file is read before anything is thrown: one answer lists the problems of all three.
  const errors: ValidationError[] = [];
  const read = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      errors.push(err);
      return undefined;
    }
  };
  body.exposures = read(() => readExposuresCsv(exposures!));
  body.factor_covariance = read(() => readFactorCovarianceCsv(covariance!));
  const risk = read(() => readSpecificRiskCsv(specific!));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1)
    throw new ValidationError(
      `${errors.length} files have problems; nothing was imported. ${errors.map((e) => e.message).join(" ")}`,
      errors.flatMap((e) => e.issues),
    );
  if (risk === undefined) return body;
  if (kind === "vendor") {
    body.specific_risk = risk.values;
    body.specific_risk_kind = risk.kind;
  } else if (risk.kind === "volatility")
    throw new ValidationError(
      `A custom factor model takes specific variances: name the column specific_variance (or import it as ${naming.kind} vendor, which takes volatilities).`,
      [{ path: "specific_risk", message: "specific_variance column expected" }],
      naming.code,
    );
  else body.specific_variance = risk.values;
  return body;
}
