/**
 * @module cli/backtest-batch
 * What `lotwise backtest batch` reads from its command line: the account list file and the threshold options. The
 * gate itself, the result rows and their CSV are the service's (service/backtest-batch.ts), for library users too.
 */
import { usageError } from "./errors.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Account uuids from the text of an `--accounts` file: a JSON array (of uuids or of objects with `account_uuid`),
 * a CSV whose header has an `account_uuid` column, or one uuid per line (`#` starts a comment; the first
 * comma- or space-separated token counts). Duplicates are dropped, first occurrence kept.
 * @throws {ValidationError} `usage` naming the lines that hold no uuid
 */
export function parseAccountList(text: string, source: string): string[] {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  let ids: { id: string; where: string }[];
  if (trimmed.startsWith("[")) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch (err) {
      throw usageError(`${source} is not valid JSON: ${(err as Error).message}`, "accounts");
    }
    ids = (doc as unknown[]).map((v, i) => ({
      id: String(typeof v === "object" && v !== null ? (v as { account_uuid?: unknown }).account_uuid : v),
      where: `item ${i}`,
    }));
  } else {
    const lines = trimmed.split(/\r?\n/);
    const header = lines[0]!.split(",").map((h) => h.trim().toLowerCase());
    const column = header.indexOf("account_uuid");
    ids = [];
    lines.forEach((line, i) => {
      if (column >= 0 && i === 0) return;
      const content = line.replace(/#.*$/, "").trim();
      if (content === "") return;
      const cells = column >= 0 ? content.split(",") : content.split(/[\s,]+/);
      ids.push({ id: (cells[Math.max(column, 0)] ?? "").trim(), where: `line ${i + 1}` });
    });
  }
  const bad = ids.filter((x) => !UUID.test(x.id));
  if (bad.length > 0)
    throw usageError(
      `${source}: ${bad
        .slice(0, 5)
        .map((b) => `${b.where} has no account uuid ("${b.id.slice(0, 40)}")`)
        .join("; ")}${bad.length > 5 ? `; and ${bad.length - 5} more` : ""}.`,
      "accounts",
    );
  if (ids.length === 0) throw usageError(`${source} lists no account.`, "accounts");
  return [...new Set(ids.map((x) => x.id.toLowerCase()))];
}

/**
 * A fraction from `0.02`, `2%` or `2 %`.
 * @throws {ValidationError} `usage` naming the option
 */
export function parseFraction(text: string, option: string): number {
  const t = text.trim();
  const percent = t.endsWith("%");
  const body = percent ? t.slice(0, -1).trim() : t;
  if (!/^-?\d+(\.\d+)?$/.test(body))
    throw usageError(`${option} expects a fraction (0.02) or a percent (2%), got "${text}".`, option);
  return percent ? Number(body) / 100 : Number(body);
}

/**
 * A finite number.
 * @throws {ValidationError} `usage` naming the option
 */
export function parseNumber(text: string, option: string): number {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim()))
    throw usageError(`${option} expects a number, got "${text}".`, option);
  return Number(text);
}
