/**
 * @module cli/commands/themes
 * `lotwise themes ...` (endpoints 7, 8 and the theme extensions) and `lotwise catalog ...` (endpoints 9, 10).
 */
import { writeFile } from "node:fs/promises";
import { type Command, Option } from "commander";
import type {
  Theme,
  ThemeBacktestResult,
  ThemeConstituentSnapshot,
  ThemeMethodologyInput,
  ThemeRevision,
} from "../../contract/index.js";
import { usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, dateFlag, examples, integerFlag, type ProgramHooks, readJsonInput } from "../program.js";
import { percent } from "../render.js";
import { renderThemeBacktestReportHtml } from "../report-html.js";

function renderTheme(t: Theme): string {
  const m = t.methodology;
  const universe = "preset" in m.universe ? `preset ${m.universe.preset}` : m.universe.expression;
  return renderKeyValues(
    [
      ["Theme", `${t.name}  ${t.uuid}`],
      ["Description", t.description ?? ""],
      ["Revision", t.revision],
      ["Universe", universe],
      ["Filters", m.filters.join("  AND  ") || "(none)"],
      ["Score", m.score],
      [
        "Selection",
        `${m.selection.mode}${m.selection.value !== undefined ? ` ${m.selection.value}` : ""}${m.selection.min_count !== undefined ? `, at least ${m.selection.min_count}` : ""}`,
      ],
      [
        "Weighting",
        `${m.weighting.scheme}${m.weighting.max_weight !== undefined ? `, cap ${percent(m.weighting.max_weight)}` : ""}`,
      ],
      ["Rebalancing", m.rules.rebalancing_period],
    ],
    "Theme",
  );
}

/**
 * The warning a snapshot needs when its theme's `max_weight` could not hold: with n names and n x max_weight < 1
 * every name gets 1/n (docs/themes.md). Empty when the cap held, or when `theme` is another revision.
 */
export function capWarning(s: ThemeConstituentSnapshot, theme: Theme | undefined): string {
  const cap = theme?.methodology.weighting.max_weight;
  const top = s.constituents[0]?.weight;
  if (theme === undefined || theme.revision !== s.revision || cap === undefined || top === undefined)
    return "";
  if (top <= cap * (1 + 1e-9)) return "";
  const n = s.constituents.length;
  return `\nWarning: max_weight ${percent(cap)} cannot hold with ${n} name${n === 1 ? "" : "s"} (${n} x ${percent(cap)} is under 100%), so each name weighs ${percent(top)}, the smallest possible largest weight. Select more names or raise max_weight.`;
}

function renderSnapshot(s: ThemeConstituentSnapshot, limit: number, theme?: Theme): string {
  const head = `Constituents of ${s.theme_uuid} as of ${s.as_of_date} (revision ${s.revision}): ${s.total_constituents} name${s.total_constituents === 1 ? "" : "s"}, total weight ${s.total_weight.toFixed(6)}`;
  const rows = s.constituents.slice(0, limit);
  const table = renderTable(rows, [
    { header: "#", value: (c) => s.constituents.indexOf(c) + 1, align: "right" },
    { header: "Symbol", value: (c) => c.symbol },
    { header: "Listing", value: (c) => c.theme_asset_id },
    { header: "Name", value: (c) => c.name },
    { header: "Score", value: (c) => c.score.toPrecision(4), align: "right" },
    { header: "Weight", value: (c) => percent(c.weight), align: "right" },
  ]);
  const more =
    s.constituents.length > limit
      ? `\n... ${s.constituents.length - limit} more (use --limit or --json)`
      : "";
  return `${head}\n${table}${more}${capWarning(s, theme)}`;
}

function renderBacktest(r: ThemeBacktestResult, theme: string): string {
  const parts: string[] = [];
  const since = Number(r.theme.since_inception_returns);
  const dates = Object.keys(r.theme.backtest_values).sort();
  parts.push(
    renderKeyValues(
      [
        ["Window", `${dates[0] ?? ""} to ${dates[dates.length - 1] ?? ""}`],
        ["Theme return since inception", percent(since)],
      ],
      `Theme backtest of ${theme}`,
    ),
  );
  if (r.summary) {
    const m = r.summary.risk_metrics;
    parts.push(
      renderKeyValues(
        [
          ["Benchmark", r.benchmark?.identifier ?? ""],
          ["Portfolio return", percent(r.summary.portfolio_return)],
          ["Benchmark return", percent(r.summary.benchmark_return)],
          ["Relative return", percent(r.summary.relative_return)],
          ["Beta", m.beta === null ? "n/a" : m.beta.toFixed(3)],
          ["Sharpe", m.sharpe === null ? "n/a" : m.sharpe.toFixed(3)],
          ["Volatility (annualized)", m.volatility === null ? "n/a" : percent(m.volatility)],
          ["Max drawdown", m.max_drawdown === null ? "n/a" : percent(m.max_drawdown)],
          ...(r.summary.benchmark_coverage_note
            ? ([["Coverage", r.summary.benchmark_coverage_note]] as [string, string][])
            : []),
        ],
        "Against the benchmark",
      ),
    );
  }
  const returns = Object.entries(r.theme.backtest_returns);
  const bench = r.benchmark?.backtest_returns ?? {};
  parts.push(
    renderTable(
      returns,
      [
        { header: "Period end", value: ([d]) => d },
        { header: "Theme", value: ([, v]) => percent(v), align: "right" },
        {
          header: "Benchmark",
          value: ([d]) => (bench[d] === undefined ? "" : percent(bench[d])),
          align: "right",
        },
        {
          header: "Cumulative",
          value: ([d]) => percent(r.theme.cumulative_backtest_returns[d]),
          align: "right",
        },
      ],
      "Period returns",
    ),
  );
  parts.push(
    renderTable(
      r.rebalance_events,
      [
        { header: "Rebalance", value: (e) => e.date },
        { header: "Names", value: (e) => e.constituent_count, align: "right" },
        { header: "Added", value: (e) => e.added.map((a) => a.symbol).join(" ") },
        { header: "Removed", value: (e) => e.removed.map((a) => a.symbol).join(" ") },
      ],
      "Rebalance events",
    ),
  );
  return parts.join("\n\n");
}

export function registerThemes(program: Command, hooks: ProgramHooks): void {
  const themes = program
    .command("themes")
    .description("Themes: saved selection methodologies turned into weighted constituents and backtested.");
  examples(
    themes
      .command("create")
      .description(
        "Create a theme from a methodology JSON (universe, filters, score, selection, weighting, rules.rebalancing_period). See fixtures/theme-dividend-tech.json and docs/themes.md.",
      )
      .requiredOption("--file <path>", "methodology JSON, '-' for stdin")
      .option("--evaluate", "evaluate it right away (stores a snapshot)")
      .action(
        action(hooks, async (ctx, opts: { file: string; evaluate?: boolean }) => {
          const backend = await ctx.backend();
          const t = await backend.createTheme((await readJsonInput(opts.file)) as ThemeMethodologyInput);
          const snap = opts.evaluate ? await backend.evaluateTheme(t.uuid) : undefined;
          if (ctx.out.json) ctx.out.printJson(snap ? { theme: t, snapshot: snap } : t);
          else ctx.out.line(`${renderTheme(t)}${snap ? `\n\n${renderSnapshot(snap, 20, t)}` : ""}`);
        }),
      ),
    "lotwise themes create --file fixtures/theme-dividend-tech.json --evaluate",
  );
  examples(
    themes
      .command("update <theme>")
      .description(
        "Save a new revision: fields given replace the latest revision's (others are kept). The new revision needs evaluating.",
      )
      .option("--file <path>", "revision JSON (any methodology fields), '-' for stdin")
      .option("--name <name>", "new name")
      .option(
        "--filter <expr>",
        "replace the filters with these (repeatable)",
        (v: string, p: string[] = []) => [...p, v],
      )
      .option("--score <expr>", "new score expression")
      .option("--rebalancing <period>", "MONTHLY, QUARTERLY, SEMI_ANNUALLY or ANNUALLY")
      .action(
        action(
          hooks,
          async (
            ctx,
            uuid: string,
            opts: { file?: string; name?: string; filter?: string[]; score?: string; rebalancing?: string },
          ) => {
            const body = (opts.file ? await readJsonInput(opts.file) : {}) as Record<string, unknown>;
            if (opts.name) body.name = opts.name;
            if (opts.filter !== undefined && opts.filter.length > 0) body.filters = opts.filter;
            if (opts.score) body.score = opts.score;
            if (opts.rebalancing) body.rules = { rebalancing_period: opts.rebalancing.toUpperCase() };
            if (Object.keys(body).length === 0)
              throw usageError("Nothing to change: give --file or a field option.", "file");
            const t = await (await ctx.backend()).reviseTheme(uuid, body as ThemeRevision);
            if (ctx.out.json) ctx.out.printJson(t);
            else ctx.out.line(renderTheme(t));
          },
        ),
      ),
    "lotwise themes update 0b6e... --filter 'sector = 45' --filter 'dividend_yield > 1.5%'",
  );
  examples(
    themes
      .command("list")
      .description("List the organization's themes.")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const list = await (await ctx.backend()).listThemes();
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "themes", list, [
              { header: "theme_uuid", value: (t) => t.uuid },
              { header: "name", value: (t) => t.name },
              { header: "description", value: (t) => t.description },
              { header: "rebalancing_period", value: (t) => t.methodology.rules.rebalancing_period },
              { header: "revision", value: (t) => t.revision },
              { header: "created", value: (t) => t.created },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              list.length
                ? renderTable(list, [
                    { header: "Theme", value: (t) => t.uuid },
                    { header: "Name", value: (t) => t.name },
                    { header: "Rebalancing", value: (t) => t.methodology.rules.rebalancing_period },
                    { header: "Revision", value: (t) => t.revision },
                  ])
                : "No themes yet: lotwise themes create --file methodology.json",
            );
        }),
      ),
    "lotwise themes list",
    "lotwise themes list --out themes.csv",
  );
  examples(
    themes
      .command("show <theme>")
      .description("Show a theme's latest methodology.")
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const t = await (await ctx.backend()).getTheme(uuid);
          if (ctx.out.json) ctx.out.printJson(t);
          else ctx.out.line(renderTheme(t));
        }),
      ),
    "lotwise themes show 0b6e...",
  );
  examples(
    themes
      .command("evaluate <theme>")
      .description("Evaluate the latest revision with point-in-time data and store the snapshot.")
      .option("--as-of <date>", "evaluate with data up to this date (default: latest market date)", dateFlag)
      .option("--limit <n>", "rows to print", integerFlag(0, 1_000_000), 25)
      .action(
        action(hooks, async (ctx, uuid: string, opts: { asOf?: string; limit: number }) => {
          const backend = await ctx.backend();
          const s = await backend.evaluateTheme(uuid, opts.asOf ? { as_of_date: opts.asOf } : {});
          if (ctx.out.json) ctx.out.printJson(s);
          else ctx.out.line(renderSnapshot(s, opts.limit, await backend.getTheme(uuid)));
        }),
      ),
    "lotwise themes evaluate 0b6e... --as-of 2017-12-29",
  );
  examples(
    themes
      .command("constituents <theme>")
      .description(
        "The stored constituents of the latest revision (endpoint 7); fails with snapshot_not_found if never evaluated.",
      )
      .option("--limit <n>", "rows to print", integerFlag(0, 1_000_000), 50)
      .action(
        action(hooks, async (ctx, uuid: string, opts: { limit: number }) => {
          const backend = await ctx.backend();
          const s = await backend.getThemeConstituents(uuid);
          if (ctx.out.json) ctx.out.printJson(s);
          else ctx.out.line(renderSnapshot(s, opts.limit, await backend.getTheme(uuid)));
        }),
      ),
    "lotwise themes constituents 0b6e... --json",
  );
  examples(
    themes
      .command("backtest <theme>")
      .description(
        "Backtest the theme over a window at its saved cadence (endpoint 8), optionally against a benchmark index or ticker.",
      )
      .option("--start-date <date>", "first day (default: 365 days before --end-date)", dateFlag)
      .option("--end-date <date>", "last day (default: the latest market date)", dateFlag)
      // The names before they matched `backtest start`'s (and the wire's start_date / end_date).
      .addOption(new Option("--start <date>").hideHelp().argParser(dateFlag))
      .addOption(new Option("--end <date>").hideHelp().argParser(dateFlag))
      .option("--benchmark <id>", "index identifier (SP500, SYNTH500) or ticker")
      .option("--html <file>", "also write a self-contained HTML report with charts to FILE")
      .action(
        action(
          hooks,
          async (
            ctx,
            uuid: string,
            opts: {
              startDate?: string;
              endDate?: string;
              start?: string;
              end?: string;
              benchmark?: string;
              html?: string;
            },
          ) => {
            const start = opts.startDate ?? opts.start;
            const end = opts.endDate ?? opts.end;
            const r = await ctx.out.spin("Backtesting the theme", async () =>
              (await ctx.backend()).backtestTheme(uuid, {
                ...(start ? { start_date: start } : {}),
                ...(end ? { end_date: end } : {}),
                ...(opts.benchmark ? { benchmark: opts.benchmark } : {}),
              }),
            );
            // Titled by the theme's name (its uuid when the lookup fails).
            const theme =
              opts.html || !ctx.out.json
                ? await (await ctx.backend())
                    .getTheme(uuid)
                    .then((t) => t.name)
                    .catch(() => uuid)
                : uuid;
            if (opts.html) {
              await writeFile(opts.html, renderThemeBacktestReportHtml(r, { theme }));
              ctx.out.note(`lotwise: wrote the report to ${opts.html}`);
            }
            if (ctx.out.json) ctx.out.printJson(r);
            else ctx.out.line(renderBacktest(r, theme));
          },
        ),
      ),
    "lotwise themes backtest 0b6e... --start-date 2024-01-01 --benchmark SYNTH500 --html theme.html",
  );

  const catalog = program
    .command("catalog")
    .description("Catalog lookups: industry classification search and universe presets.");
  examples(
    catalog
      .command("industry <query...>")
      .description(
        "Search the built-in industry taxonomy by words (endpoint 9); each match comes with a filter expression for themes.",
      )
      .action(
        action(hooks, async (ctx, words: string[]) => {
          const r = await (await ctx.backend()).searchIndustries({ query: words.join(" ") });
          if (ctx.out.json) {
            ctx.out.printJson(r);
            return;
          }
          if (r.matches.length === 0) {
            ctx.out.line(`No match for "${r.query}". ${r.hint}`);
            return;
          }
          ctx.out.line(
            renderTable(r.matches, [
              { header: "Level", value: (m) => m.level },
              { header: "Code", value: (m) => m.id, align: "right" },
              { header: "Name", value: (m) => m.name },
              { header: "Expression", value: (m) => m.expression },
              { header: "Parent", value: (m) => m.parent ?? "" },
            ]),
          );
          if (r.hint) ctx.out.line(r.hint);
        }),
      ),
    "lotwise catalog industry semiconductors",
    "lotwise catalog industry banks --json",
  );
  examples(
    catalog
      .command("presets")
      .description("List universe presets (endpoint 10) with their filter expressions.")
      .action(
        action(hooks, async (ctx) => {
          const r = await (await ctx.backend()).listUniversePresets();
          if (ctx.out.json) ctx.out.printJson(r);
          else
            ctx.out.line(
              renderTable(r.presets, [
                { header: "Preset", value: (p) => p.id },
                { header: "Name", value: (p) => p.name },
                { header: "Filter expression", value: (p) => p.filter_expression },
                { header: "Exchanges", value: (p) => p.allowed_exchanges.join(" ") },
              ]),
            );
        }),
      ),
    "lotwise catalog presets",
  );
}
