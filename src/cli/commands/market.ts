/**
 * @module cli/commands/market
 * `lotwise market generate|import|list`: market data of the local store (shared by its organizations).
 */
import { access } from "node:fs/promises";
import type { Command } from "commander";
import type { ImportSummary } from "../../market/importers/index.js";
import type { Sp500LoadSummary } from "../../market/real-data/index.js";
import type { SyntheticWriteSummary } from "../../market/synthetic/index.js";
import {
  generateMarketData,
  importMarketData,
  MARKET_IMPORT_KINDS,
  type MarketChangePlan,
  type MarketImportKind,
  MarketModeRequiredError,
  type MarketWriteOptions,
} from "../../service/market-data.js";
import type { CommandContext } from "../context.js";
import { EXIT_OK, EXIT_USAGE, usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import {
  action,
  actionWithCode,
  dateFlag,
  examples,
  integerFlag,
  numberFlag,
  type ProgramHooks,
} from "../program.js";
import { quantity } from "../render.js";

interface ModeOptions {
  merge?: boolean;
  replace?: boolean;
  dryRun?: boolean;
}

interface ImportOptions extends ModeOptions {
  mic?: string;
  symbol?: string;
  index?: string;
  indexName?: string;
  createSecurities?: boolean;
  skipUnresolved?: boolean;
}

/** --merge / --replace / --dry-run -> the service's write options. */
function writeOptions(o: ModeOptions): MarketWriteOptions {
  if (o.merge && o.replace) throw usageError("Use --merge or --replace, not both.", "mode");
  return {
    ...(o.merge ? { mode: "merge" as const } : o.replace ? { mode: "replace" as const } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
  };
}

/** Adds the mode options to a command that writes market data. */
function modeOptions(c: Command): Command {
  return c
    .option("--merge", "the store holds market data: add this to it (rows with the same key are overwritten)")
    .option(
      "--replace",
      "the store holds market data: delete it first (refused when tax lots hold a listing the new data lacks)",
    )
    .option(
      "--dry-run",
      "show what would change (new listings, overwritten prices, ambiguous symbols) and write nothing",
    );
}

const list = (ids: readonly string[], max = 8) =>
  ids.length <= max ? ids.join(", ") : `${ids.slice(0, max).join(", ")} and ${ids.length - max} more`;

/** The change plan as a short text: counts with a few examples (--json gives all of it). */
export function renderPlan(p: MarketChangePlan): string {
  const title = p.applied
    ? "Changes to the store's market data"
    : p.dryRun
      ? "Would change (dry run, nothing written)"
      : "Would change (nothing written)";
  const rows: [string, string | number][] = [
    ["Mode", p.mode ?? (p.storeHadMarketData ? "none given" : "none needed (the store held no market data)")],
    [
      "Listings added",
      p.listingsAdded.length === 0 ? 0 : `${p.listingsAdded.length}: ${list(p.listingsAdded)}`,
    ],
  ];
  if (p.listingsChanged.length > 0)
    rows.push(["Listings whose record changes", `${p.listingsChanged.length}: ${list(p.listingsChanged)}`]);
  const o = p.pricesOverwritten;
  rows.push([
    "Closes overwritten",
    o.count === 0
      ? 0
      : `${o.count} in ${o.byListing.length} listing${o.byListing.length === 1 ? "" : "s"}: ${list(o.byListing.map((b) => `${b.themeAssetId} (${b.count})`))}`,
  ]);
  const added = p.pricesAddedToExistingListings;
  if (added.length > 0)
    rows.push([
      "New price dates of existing listings",
      `${added.reduce((a, b) => a + b.count, 0)} in ${added.length} listing${added.length === 1 ? "" : "s"}: ${list(added.map((b) => `${b.themeAssetId} (${b.count})`))}`,
    ]);
  rows.push([
    "Symbols that become ambiguous",
    p.ambiguousSymbols.length === 0
      ? 0
      : `${p.ambiguousSymbols.length}: ${list(
          p.ambiguousSymbols.map((a) => `${a.symbol} (${a.listings.join(", ")})`),
          5,
        )}`,
  ]);
  if (p.removed) {
    const r = p.removed;
    rows.push(
      [
        "Removed first (replace)",
        `${r.securities} listings, ${r.prices} price rows, ${r.splits} splits, ${r.dividends} dividends, ${r.fxRates} FX rates, ${r.characteristics} characteristic values, ${r.indexes} indexes`,
      ],
      ["Listings gone afterwards", r.listings.length === 0 ? 0 : `${r.listings.length}: ${list(r.listings)}`],
    );
  }
  let out = renderKeyValues(rows, title);
  if (o.examples.length > 0)
    out += `\n${renderTable(
      o.examples,
      [
        { header: "Listing", value: (e) => e.themeAssetId },
        { header: "Date", value: (e) => e.date },
        { header: "Old close", value: (e) => e.old, align: "right" },
        { header: "New close", value: (e) => e.new, align: "right" },
      ],
      `Overwritten closes (first ${o.examples.length} of ${o.count})`,
    )}`;
  return out;
}

/**
 * Runs a market write; when the store holds market data and no mode was given, prints the plan and the reason
 * and returns exit code 2 (nothing written).
 */
async function guarded(ctx: CommandContext, write: () => Promise<void>): Promise<number> {
  try {
    await write();
    return EXIT_OK;
  } catch (err) {
    if (!(err instanceof MarketModeRequiredError)) throw err;
    const message = `The store already holds market data (${err.held.listings} listings, ${err.held.priceRows} price rows): use --merge to add this data to it or --replace to delete the store's market data first (--dry-run shows the plan only). Nothing was written.`;
    if (ctx.out.json) ctx.out.printJson({ error: { code: err.code, message }, plan: err.plan });
    else {
      ctx.out.line(renderPlan(err.plan));
      ctx.out.note(`lotwise: ${message}`);
    }
    return EXIT_USAGE;
  }
}

function renderSummary(s: ImportSummary, applied: boolean): string {
  const counts = Object.entries(s.flawCounts).filter(([, n]) => n > 0);
  const head = renderKeyValues(
    [
      ["File", s.file],
      ["Layout", s.layout],
      ["Rows read / kept / skipped", `${s.rowsRead} / ${s.rowsKept} / ${s.rowsSkipped}`],
      ["Records", s.records],
      ["Symbols", s.symbols],
      ["Dates", s.firstDate ? `${s.firstDate} to ${s.lastDate}` : ""],
      ["Ignored columns", s.ignoredColumns.join(", ")],
    ],
    applied ? `Imported ${s.dataset}` : `Read ${s.dataset} (not written)`,
  );
  if (counts.length === 0) return `${head}\nNo data flaws found.`;
  const flaws = renderTable(
    counts,
    [
      { header: "Flaw", value: (c) => c[0] },
      { header: "Count", value: (c) => c[1], align: "right" },
      {
        header: "Examples",
        value: (c) =>
          s.flaws
            .filter((f) => f.kind === c[0])
            .slice(0, 3)
            .map((f) => `${f.symbol ?? ""} ${f.date ?? ""} (line ${f.line ?? "-"}, ${f.action})`.trim())
            .join("; "),
      },
    ],
    "Data flaws (reported, never silently dropped; use --json for the full list)",
  );
  return `${head}\n${flaws}`;
}

/**
 * What `market generate` made, in words (the --json answer keeps the field names): `Price rows  3,627,410`, not
 * `prices  3627410`.
 */
export function renderSyntheticSummary(w: SyntheticWriteSummary, applied: boolean): string {
  const rows: [string, number][] = [
    ["Securities", w.securities],
    ["Price rows", w.prices],
    ["Splits", w.splits],
    ["Dividends", w.dividends],
    ["FX rates", w.fxRates],
    ["Characteristic values", w.characteristics],
    ["Index levels", w.indexLevels],
    ["Index weights", w.indexWeights],
  ];
  return renderKeyValues(
    rows.map(([label, n]) => [label, quantity(n)]),
    applied ? "Synthetic market written" : "Synthetic market generated (not written)",
  );
}

export function registerMarket(program: Command, hooks: ProgramHooks): void {
  const market = program
    .command("market")
    .description("Market data of the local store: synthetic generation, CSV imports, what is loaded.");

  examples(
    modeOptions(
      market
        .command("generate")
        .description(
          "Generate a seeded synthetic market (factor model with fat tails, splits, dividends, US and Canadian listings, USD/CAD) into the store. A store that already holds market data needs --merge or --replace; without either the command prints what would change and exits 2.",
        )
        .option(
          "--seed <n>",
          "random seed (same seed, same market)",
          integerFlag(0, Number.MAX_SAFE_INTEGER),
          1,
        )
        .option("--securities <n>", "number of securities, 50 to 5000", integerFlag(50, 5000), 500)
        .option("--years <n>", "years of history, 1 to 30", integerFlag(1, 30), 10)
        .option("--end-date <date>", "last trading date", dateFlag, "2025-12-31")
        .option(
          "--canadian-share <f>",
          "fraction of listings on the TSX in CAD, 0 to 0.5",
          numberFlag(0, 0.5),
          0.12,
        ),
    ).action(
      actionWithCode(
        hooks,
        async (
          ctx,
          opts: ModeOptions & {
            seed: number;
            securities: number;
            years: number;
            endDate: string;
            canadianShare: number;
          },
        ) => {
          const write = writeOptions(opts);
          const svc = await ctx.service();
          return guarded(ctx, async () => {
            const r = await ctx.out.spin("Generating the synthetic market", async (update) =>
              generateMarketData(
                svc,
                {
                  seed: opts.seed,
                  securities: opts.securities,
                  years: opts.years,
                  endDate: opts.endDate,
                  canadianShare: opts.canadianShare,
                },
                { ...write, onProgress: update },
              ),
            );
            if (ctx.out.json) ctx.out.printJson(r);
            else {
              ctx.out.line(renderSyntheticSummary(r.written, r.plan.applied));
              ctx.out.line(renderPlan(r.plan));
            }
          });
        },
      ),
    ),
    "lotwise market generate --seed 42 --securities 1000 --years 15",
    "lotwise market generate --seed 7 --securities 200 --years 8 --dry-run",
    "lotwise market generate --seed 42 --replace",
  );

  examples(
    modeOptions(
      market
        .command("import <kind> <path>")
        .description(
          `Import a CSV file (.csv or .csv.gz) of market data, all or nothing; data flaws are reported. Kinds: ${MARKET_IMPORT_KINDS.join(", ")} (sp500 takes the folder of the S&P 500 data set). A store that already holds market data needs --merge or --replace; without either the command prints what would change and exits 2.`,
        )
        .option(
          "--mic <mic>",
          "exchange (ISO 10383 MIC) for plain symbols, e.g. XNYS; default: look symbols up in the store",
        )
        .option(
          "--symbol <symbol>",
          "symbol of a one-security price file (Date,Open,High,Low,Close,Adj Close,Volume)",
        )
        .option("--index <identifier>", "index identifier for index-levels, e.g. SP500")
        .option("--index-name <name>", "display name of the index")
        .option("--create-securities", "prices: add a minimal security for unknown symbols (needs --mic)")
        .option("--skip-unresolved", "skip (and report) rows whose symbol is unknown instead of failing"),
    ).action(
      actionWithCode(hooks, async (ctx, kind: string, path: string, opts: ImportOptions) => {
        if (!(MARKET_IMPORT_KINDS as readonly string[]).includes(kind))
          throw usageError(
            `Unknown import kind "${kind}". Use one of: ${MARKET_IMPORT_KINDS.join(", ")}.`,
            "kind",
          );
        const write = writeOptions(opts);
        // A file (or sp500 folder) that cannot be read is a usage error, reported before the store is opened and
        // before the "Importing ..." line.
        await access(path);
        const svc = await ctx.service();
        return guarded(ctx, async () => {
          const r = await ctx.out.spin(`Importing ${kind} from ${path}`, () =>
            importMarketData(svc, kind as MarketImportKind, path, {
              ...write,
              ...(opts.mic ? { mic: opts.mic } : {}),
              ...(opts.symbol ? { symbol: opts.symbol } : {}),
              ...(opts.index ? { index: opts.index } : {}),
              ...(opts.indexName ? { indexName: opts.indexName } : {}),
              ...(opts.createSecurities ? { createSecurities: true } : {}),
              ...(opts.skipUnresolved ? { skipUnresolved: true } : {}),
            }),
          );
          if (ctx.out.json) {
            ctx.out.printJson(r);
            return;
          }
          if (kind === "sp500") {
            const s = r.summary as Sp500LoadSummary;
            ctx.out.line(renderKeyValues(Object.entries(s.written), `S&P 500 data set read from ${path}`));
            ctx.out.line(
              renderKeyValues(
                Object.entries(s.knownFlaws).map(([k, v]) => [k, JSON.stringify(v)]),
                "Known data flaws found",
              ),
            );
            for (const c of s.caveats) ctx.out.line(`note: ${c}`);
          } else ctx.out.line(renderSummary(r.summary as ImportSummary, r.plan.applied));
          ctx.out.line(renderPlan(r.plan));
        });
      }),
    ),
    "lotwise market import prices all_stocks_5yr.csv.gz --mic XNYS --create-securities",
    "lotwise market import prices AAPL.csv --symbol AAPL:XNAS --merge --dry-run",
    "lotwise market import fx eurofxref-hist.csv.gz --merge",
    "lotwise market import index-levels sp500.csv --index SP500 --index-name 'S&P 500' --merge",
    "lotwise market import sp500 ../shared/data --replace",
  );

  examples(
    market
      .command("list")
      .description(
        "What market data the store holds: securities, price history, corporate actions, FX, characteristics, indexes, imports. With --out FILE.csv, one item,value row per line of the summary (one per index).",
      )
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const store = await ctx.store();
          const s = await store.market.summary();
          const full = { ...s, imports: (await store.market.imports()).map(({ summary: _s, ...r }) => r) };
          if (opts.out) {
            const items: [string, string | number][] = [
              ["securities", s.securities],
              ...Object.entries(s.byCurrency).map(([c, n]): [string, number] => [`securities_${c}`, n]),
              ["price_rows", s.priceRows],
              ["first_date", s.firstDate ?? ""],
              ["last_date", s.lastDate ?? ""],
              ["splits", s.splits],
              ["dividends", s.dividends],
              ["fx_currencies", s.fxCurrencies.join(" ")],
              ["characteristics", s.characteristics.join(" ")],
              ...s.indexes.map((i): [string, string] => [
                `index ${i.identifier}`,
                `${i.name}; ${i.levels} levels; ${i.firstDate} to ${i.lastDate}`,
              ]),
            ];
            await writeListOut(
              ctx.out,
              opts.out,
              "summary items",
              items,
              [
                { header: "item", value: ([k]) => k },
                { header: "value", value: ([, v]) => v },
              ],
              full,
            );
            return;
          }
          if (ctx.out.json) {
            ctx.out.printJson(full);
            return;
          }
          ctx.out.line(
            renderKeyValues(
              [
                [
                  "Securities",
                  `${s.securities} (${Object.entries(s.byCurrency)
                    .map(([c, n]) => `${n} ${c}`)
                    .join(", ")})`,
                ],
                ["Price rows", s.priceRows],
                ["Dates", s.firstDate ? `${s.firstDate} to ${s.lastDate}` : "none"],
                ["Splits / dividends", `${s.splits} / ${s.dividends}`],
                ["FX currencies (per USD)", s.fxCurrencies.join(", ")],
                ["Characteristics", s.characteristics.join(", ")],
              ],
              `Market data in ${store.location}`,
            ),
          );
          if (s.indexes.length > 0)
            ctx.out.line(
              renderTable(s.indexes, [
                { header: "Index", value: (i) => i.identifier },
                { header: "Name", value: (i) => i.name },
                { header: "Levels", value: (i) => i.levels, align: "right" },
                { header: "From", value: (i) => i.firstDate },
                { header: "To", value: (i) => i.lastDate },
              ]),
            );
        }),
      ),
    "lotwise market list --json",
    "lotwise market list --out market.csv",
  );
}
