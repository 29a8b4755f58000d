/**
 * @module cli/risk-model-csv
 * Reading the CSV files of a risk model for `lotwise risk-models import` into the records of the import body
 * (`RiskModelImport`). Long files carry one number a row (`asset,factor,exposure`, `factor1,factor2,covariance`,
 * `asset,specific_risk`); wide ones a matrix (`asset,<factor>,<factor>...` for exposures; a square matrix with a
 * header row of names and the same names down the first column for a covariance). Headers are matched without case.
 * Every bad cell is reported with its file, line and column, and nothing is returned unless the whole file is valid.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { parse } from "csv-parse/sync";
import { type FieldIssue, ValidationError } from "../core/errors.js";

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

async function readSheet(path: string): Promise<Sheet> {
  const text = await readFile(path, "utf8");
  const records = parse(text, {
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    info: true,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  const file = basename(path);
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
export async function readExposuresCsv(path: string): Promise<Record<string, Record<string, number>>> {
  const sheet = await readSheet(path);
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
export async function readFactorCovarianceCsv(path: string): Promise<Record<string, Record<string, number>>> {
  const sheet = await readSheet(path);
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

/** A square asset covariance (custom models): assets across the header and down the first column. */
export async function readAssetCovarianceCsv(
  path: string,
): Promise<{ assets: string[]; covariance: number[][] }> {
  const sheet = await readSheet(path);
  if (column(sheet, "factor1", "factor_1") >= 0 || column(sheet, "covariance") >= 0)
    throw new ValidationError(
      `${sheet.file} looks like a factor covariance (factor1,factor2,covariance); alone, --covariance of a custom model is a square asset covariance (a header of asset ids, the same ids down the first column). Give --exposures and --specific-risk too for a factor model.`,
      [{ path: sheet.file, message: "not a square asset covariance" }],
      "usage",
    );
  const { names, matrix } = readSquare(sheet);
  return { assets: names, covariance: matrix };
}

/**
 * Specific risk by asset: `asset,specific_risk` (volatilities) or `asset,specific_variance` (variances); the kind
 * says which column the file had.
 */
export async function readSpecificRiskCsv(
  path: string,
): Promise<{ values: Record<string, number>; kind: "volatility" | "variance" }> {
  const sheet = await readSheet(path);
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
