/**
 * @module cli/commands/market
 * `lotwise market generate|import|list`: market data of the local store (shared by its organizations).
 */
import type { Command } from "commander";
import {
  type ImportSummary,
  importCharacteristics,
  importDividends,
  importFx,
  importIndexLevels,
  importIndexWeights,
  importPrices,
  importSecurities,
  importSplits,
} from "../../market/importers/index.js";
import { loadSp500Dataset } from "../../market/real-data/index.js";
import { generateMarket, writeSyntheticMarket } from "../../market/synthetic/index.js";
import { usageError } from "../errors.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, examples, type ProgramHooks } from "../program.js";

export const IMPORT_KINDS = [
  "prices",
  "securities",
  "fx",
  "splits",
  "dividends",
  "characteristics",
  "index-levels",
  "index-weights",
  "sp500",
] as const;
type ImportKind = (typeof IMPORT_KINDS)[number];

interface ImportOptions {
  mic?: string;
  symbol?: string;
  index?: string;
  indexName?: string;
  createSecurities?: boolean;
  skipUnresolved?: boolean;
}

function renderSummary(s: ImportSummary): string {
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
    `Imported ${s.dataset}`,
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

export function registerMarket(program: Command, hooks: ProgramHooks): void {
  const market = program
    .command("market")
    .description("Market data of the local store: synthetic generation, CSV imports, what is loaded.");

  examples(
    market
      .command("generate")
      .description(
        "Generate a seeded synthetic market (factor model with fat tails, splits, dividends, US and Canadian listings, USD/CAD) into the store.",
      )
      .option("--seed <n>", "random seed (same seed, same market)", "1")
      .option("--securities <n>", "number of securities, 50 to 5000", "500")
      .option("--years <n>", "years of history, 1 to 30", "10")
      .option("--end-date <date>", "last trading date", "2025-12-31")
      .option("--canadian-share <f>", "fraction of listings on the TSX in CAD", "0.12")
      .action(
        action(
          hooks,
          async (
            ctx,
            opts: { seed: string; securities: string; years: string; endDate: string; canadianShare: string },
          ) => {
            const store = ctx.store();
            const written = await ctx.out.spin("Generating the synthetic market", async (update) => {
              const m = generateMarket({
                seed: Number(opts.seed),
                securities: Number(opts.securities),
                years: Number(opts.years),
                endDate: opts.endDate,
                canadianShare: Number(opts.canadianShare),
              });
              update(`writing ${m.securities.length} securities x ${m.prices.dates.length} days`);
              const w = writeSyntheticMarket(m, store.market);
              store.market.recordImport("synthetic", `seed=${opts.seed}`, w.prices, {
                options: m.options,
                written: w,
              });
              return w;
            });
            if (ctx.out.json) ctx.out.printJson(written);
            else ctx.out.line(renderKeyValues(Object.entries(written), "Synthetic market written"));
          },
        ),
      ),
    "lotwise market generate --seed 42 --securities 1000 --years 15",
  );

  examples(
    market
      .command("import <kind> <path>")
      .description(
        `Import a CSV file (.csv or .csv.gz) of market data, all or nothing; data flaws are reported. Kinds: ${IMPORT_KINDS.join(", ")} (sp500 takes the folder of the S&P 500 data set).`,
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
      .option("--skip-unresolved", "skip (and report) rows whose symbol is unknown instead of failing")
      .action(
        action(hooks, async (ctx, kind: string, path: string, opts: ImportOptions) => {
          if (!(IMPORT_KINDS as readonly string[]).includes(kind))
            throw usageError(
              `Unknown import kind "${kind}". Use one of: ${IMPORT_KINDS.join(", ")}.`,
              "kind",
            );
          const store = ctx.store();
          const sym = {
            ...(opts.mic ? { defaultMic: opts.mic.toUpperCase() } : {}),
            ...(opts.skipUnresolved ? { onUnresolvedSymbol: "skip" as const } : {}),
          };
          const run = async (): Promise<unknown> => {
            switch (kind as ImportKind) {
              case "prices":
                return importPrices(path, store.market, {
                  ...sym,
                  ...(opts.symbol ? { symbol: opts.symbol } : {}),
                  ...(opts.createSecurities ? { createMissingSecurities: true } : {}),
                });
              case "securities":
                return importSecurities(path, store.market, sym);
              case "fx":
                return importFx(path, store.market);
              case "splits":
                return importSplits(path, store.market, sym);
              case "dividends":
                return importDividends(path, store.market, sym);
              case "characteristics":
                return importCharacteristics(path, store.market, sym);
              case "index-levels":
                return importIndexLevels(path, store.market, {
                  ...(opts.index ? { identifier: opts.index } : {}),
                  ...(opts.indexName ? { name: opts.indexName } : {}),
                });
              case "index-weights":
                return importIndexWeights(path, store.market, sym);
              case "sp500":
                return loadSp500Dataset(path, store.market);
            }
          };
          const result = await ctx.out.spin(`Importing ${kind} from ${path}`, run);
          const rows = kind === "sp500" ? 0 : (result as ImportSummary).records;
          store.market.recordImport(kind, path, rows, result);
          if (ctx.out.json) ctx.out.printJson(result);
          else if (kind === "sp500") {
            const r = result as Awaited<ReturnType<typeof loadSp500Dataset>>;
            ctx.out.line(renderKeyValues(Object.entries(r.written), `S&P 500 data set loaded from ${path}`));
            ctx.out.line(
              renderKeyValues(
                Object.entries(r.knownFlaws).map(([k, v]) => [k, JSON.stringify(v)]),
                "Known data flaws found",
              ),
            );
            for (const c of r.caveats) ctx.out.line(`note: ${c}`);
          } else ctx.out.line(renderSummary(result as ImportSummary));
        }),
      ),
    "lotwise market import prices all_stocks_5yr.csv.gz --mic XNYS --create-securities",
    "lotwise market import prices AAPL.csv --symbol AAPL:XNAS",
    "lotwise market import fx eurofxref-hist.csv.gz",
    "lotwise market import index-levels sp500.csv --index SP500 --index-name 'S&P 500'",
    "lotwise market import sp500 ../shared/data",
  );

  examples(
    market
      .command("list")
      .description(
        "What market data the store holds: securities, price history, corporate actions, FX, characteristics, indexes, imports.",
      )
      .action(
        action(hooks, (ctx) => {
          const store = ctx.store();
          const s = store.market.summary();
          if (ctx.out.json) {
            ctx.out.printJson({ ...s, imports: store.market.imports().map(({ summary: _s, ...r }) => r) });
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
              `Market data in ${store.path}`,
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
  );
}
