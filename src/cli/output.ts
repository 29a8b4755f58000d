/**
 * @module cli/output
 * How commands print: tables (cli-table3) for people, `--json` for machines, spinners (ora) on slow work only
 * when stderr is a terminal. Everything goes through an {@link Output} so tests can capture it.
 */
import Table from "cli-table3";
import ora from "ora";

export interface Output {
  /** Machine-readable output requested (`--json`). */
  readonly json: boolean;
  /** Write a line to stdout. */
  line(text?: string): void;
  /** Write a line to stderr (progress, warnings). */
  note(text: string): void;
  /** Print a value as pretty JSON on stdout. */
  printJson(value: unknown): void;
  /** Run `work` with a spinner on stderr (when interactive); the spinner ends with ok/fail. */
  spin<T>(label: string, work: (update: (text: string) => void) => Promise<T>): Promise<T>;
}

export interface TableColumn<Row> {
  header: string;
  value: (row: Row) => string | number | null | undefined;
  align?: "left" | "right";
}

/** Table borders without a line between rows (compact, still aligned). */
const COMPACT = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };

/** Render rows as a bordered table with right-aligned numbers. */
export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly TableColumn<Row>[],
  title?: string,
): string {
  const table = new Table({
    head: columns.map((c) => c.header),
    chars: COMPACT,
    style: { head: [], border: [] },
    colAligns: columns.map((c) => c.align ?? "left"),
  });
  for (const r of rows) table.push(columns.map((c) => format(c.value(r))));
  return title ? `${title}\n${table.toString()}` : table.toString();
}

/** Render key/value pairs as a two-column table. */
export function renderKeyValues(
  pairs: readonly [string, string | number | null | undefined][],
  title?: string,
): string {
  const table = new Table({ chars: COMPACT, style: { head: [], border: [] } });
  for (const [k, v] of pairs) table.push({ [k]: format(v) });
  return title ? `${title}\n${table.toString()}` : table.toString();
}

function format(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return "";
  return typeof v === "number" ? String(v) : v;
}

/** Output bound to the real process streams. */
export function processOutput(json: boolean): Output {
  const interactive = Boolean(process.stderr.isTTY) && !json && process.env.CI !== "true";
  return {
    json,
    line: (text = "") => {
      process.stdout.write(`${text}\n`);
    },
    note: (text) => {
      process.stderr.write(`${text}\n`);
    },
    printJson: (value) => {
      process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    spin: async (label, work) => {
      if (!interactive) {
        if (!json) process.stderr.write(`${label}...\n`);
        return work(() => {});
      }
      const spinner = ora({ text: label, stream: process.stderr }).start();
      try {
        const r = await work((text) => {
          spinner.text = `${label}: ${text}`;
        });
        spinner.succeed(label);
        return r;
      } catch (err) {
        spinner.fail(label);
        throw err;
      }
    },
  };
}

/** Output that records everything, for tests. */
export function memoryOutput(json = false): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    json,
    stdout,
    stderr,
    line: (text = "") => {
      stdout.push(text);
    },
    note: (text) => {
      stderr.push(text);
    },
    printJson: (value) => {
      stdout.push(JSON.stringify(value, null, 2));
    },
    spin: (_label, work) => work(() => {}),
  };
}
