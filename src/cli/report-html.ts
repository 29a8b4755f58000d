/**
 * @module cli/report-html
 * `lotwise backtest show ID --html FILE`: a self-contained HTML report of a backtest job. It opens with tax, what an
 * advisor asks first: the tax effect against pre_tax and its parts, year by year (realized gains, harvested losses,
 * taxes paid or saved), the pre-tax active return and tracking error against the benchmark, the assumptions; then
 * the parameters, a line chart of the value series (each case its colour and dash), a drawdown chart, a bar chart
 * of pre- and after-tax annualized returns, a calendar-year table and the summary by case, all inline SVG. No script, stylesheet, font or image is fetched from anywhere: the file opens offline and can be
 * attached to a CI run as is.
 */
import type { BacktestCaseResult, BacktestJob, ThemeBacktestResult } from "../contract/index.js";
import {
  againstBenchmark,
  assumptionsText,
  basisResetText,
  caseOrder,
  lossUsageText,
  priceReturnOnly,
  referenceOf,
  statusLine,
  summaryRows,
  TAX_YEAR_HEADERS,
  taxCaseNames,
  taxRows,
  taxYearRows,
} from "./backtest-render.js";
import { money } from "./render.js";
import { compactNumber } from "./terminal-chart.js";

/** Colours of the series, in case order (colour-blind-safe palette of Okabe and Ito, 2008). */
export const SERIES_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"];
/** Dash patterns of the series, in case order: lines that overlap stay distinguishable. */
export const SERIES_DASHES = ["", "8 4", "2 3", "10 3 2 3", "4 4", "1 2"];

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const fmt = (v: number) => (Number.isFinite(v) ? Number(v.toFixed(2)).toString() : "0");

/** Evenly spaced "nice" tick values covering [lo, hi] (1, 2, 2.5 or 5 times a power of ten). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

/** An inline SVG line chart of date-indexed series (x: position in the union of dates; y: value). */
export function svgLineChart(
  series: readonly { name: string; points: readonly { date: string; value: number }[] }[],
  options: { width?: number; height?: number; title: string },
): string {
  const width = options.width ?? 760;
  const height = options.height ?? 320;
  const m = { top: 16, right: 16, bottom: 48, left: 64 };
  const dates = [...new Set(series.flatMap((s) => s.points.map((p) => p.date)))].sort();
  const values = series.flatMap((s) => s.points.map((p) => p.value)).filter(Number.isFinite);
  if (dates.length === 0 || values.length === 0) return "<p>No values to chart.</p>";
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi === lo) {
    lo -= Math.abs(lo) * 0.01 || 1;
    hi += Math.abs(hi) * 0.01 || 1;
  }
  const ticks = niceTicks(lo, hi);
  lo = Math.min(lo, ticks[0]!);
  hi = Math.max(hi, ticks[ticks.length - 1]!);
  const index = new Map(dates.map((d, i) => [d, i]));
  const x = (d: string) =>
    m.left + (dates.length === 1 ? 0 : (index.get(d)! / (dates.length - 1)) * (width - m.left - m.right));
  const y = (v: number) => m.top + (1 - (v - lo) / (hi - lo)) * (height - m.top - m.bottom);
  const parts: string[] = [];
  for (const t of ticks)
    parts.push(
      `<line x1="${m.left}" x2="${width - m.right}" y1="${fmt(y(t))}" y2="${fmt(y(t))}" class="grid"/>`,
      `<text x="${m.left - 6}" y="${fmt(y(t) + 4)}" text-anchor="end">${escapeHtml(compactNumber(t))}</text>`,
    );
  const labelled = [...new Set([0, Math.floor((dates.length - 1) / 2), dates.length - 1])];
  for (const i of labelled)
    parts.push(
      // The first and last dates sit at the plot's edges: anchored inward so that they are not clipped.
      `<text x="${fmt(x(dates[i]!))}" y="${height - m.bottom + 18}" text-anchor="${i === 0 && dates.length > 1 ? "start" : i === dates.length - 1 && i > 0 ? "end" : "middle"}">${escapeHtml(dates[i]!)}</text>`,
    );
  parts.push(
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}" class="axis"/>`,
    `<line x1="${m.left}" x2="${width - m.right}" y1="${height - m.bottom}" y2="${height - m.bottom}" class="axis"/>`,
  );
  series.forEach((s, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length]!;
    const pts = s.points
      .filter((p) => Number.isFinite(p.value))
      .map((p) => `${fmt(x(p.date))},${fmt(y(p.value))}`)
      .join(" ");
    const dash = SERIES_DASHES[i % SERIES_DASHES.length]!;
    const dashAttr = dash === "" ? "" : ` stroke-dasharray="${dash}"`;
    parts.push(
      `<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"${dashAttr}><title>${escapeHtml(s.name)}</title></polyline>`,
    );
    const lx = m.left + i * 140;
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${height - 12}" y2="${height - 12}" stroke="${color}" stroke-width="2"${dashAttr}/>`,
      `<text x="${lx + 26}" y="${height - 8}">${escapeHtml(s.name)}</text>`,
    );
  });
  return `<svg role="img" aria-label="${escapeHtml(options.title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${parts.join("")}</svg>`;
}

/** An inline SVG grouped bar chart: for each case, its pre-tax and after-tax annualized return (percent). */
export function svgReturnBars(result: Readonly<Record<string, BacktestCaseResult>>, title: string): string {
  const names = caseOrder(result);
  const width = 760;
  const height = 260;
  const m = { top: 16, right: 16, bottom: 48, left: 64 };
  const values = names.flatMap((n) => [
    result[n]!.pre_tax_return_annualized * 100,
    result[n]!.after_tax_return_annualized * 100,
  ]);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values));
  const lo = Math.min(0, ticks[0]!, ...values);
  const hi = Math.max(0, ticks[ticks.length - 1]!, ...values);
  const span = hi - lo || 1;
  const y = (v: number) => m.top + (1 - (v - lo) / span) * (height - m.top - m.bottom);
  const group = (width - m.left - m.right) / Math.max(1, names.length);
  const bar = Math.min(40, group / 3);
  const parts: string[] = [];
  for (const t of ticks)
    parts.push(
      `<line x1="${m.left}" x2="${width - m.right}" y1="${fmt(y(t))}" y2="${fmt(y(t))}" class="grid"/>`,
      `<text x="${m.left - 6}" y="${fmt(y(t) + 4)}" text-anchor="end">${escapeHtml(`${t}%`)}</text>`,
    );
  parts.push(
    `<line x1="${m.left}" x2="${width - m.right}" y1="${fmt(y(0))}" y2="${fmt(y(0))}" class="axis"/>`,
  );
  names.forEach((n, i) => {
    const c = result[n]!;
    const cx = m.left + group * (i + 0.5);
    [
      ["pre-tax", c.pre_tax_return_annualized * 100, SERIES_COLORS[0]!],
      ["after-tax", c.after_tax_return_annualized * 100, SERIES_COLORS[1]!],
    ].forEach(([label, v, color], k) => {
      const value = v as number;
      const top = Math.min(y(value), y(0));
      const x0 = cx - bar + k * bar;
      parts.push(
        `<rect x="${fmt(x0)}" y="${fmt(top)}" width="${fmt(bar - 2)}" height="${fmt(Math.abs(y(value) - y(0)))}" fill="${color}"><title>${escapeHtml(`${n} ${label}: ${value.toFixed(2)}%`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${fmt(cx)}" y="${height - m.bottom + 18}" text-anchor="middle">${escapeHtml(n)}</text>`,
    );
  });
  parts.push(
    `<rect x="${m.left}" y="${height - 18}" width="12" height="12" fill="${SERIES_COLORS[0]}"/>`,
    `<text x="${m.left + 16}" y="${height - 8}">pre-tax, annualized</text>`,
    `<rect x="${m.left + 170}" y="${height - 18}" width="12" height="12" fill="${SERIES_COLORS[1]}"/>`,
    `<text x="${m.left + 186}" y="${height - 8}">after-tax, annualized</text>`,
  );
  return `<svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${parts.join("")}</svg>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;margin:2rem auto;max-width:820px;padding:0 1rem}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;width:100%}th,td{padding:.25rem .5rem;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f6f6f6}
td.part{padding-left:1.5rem;color:#444}.status-SUCCESS{color:#0a7a3a}.status-FAILURE{color:#b00020}.muted{color:#666}
svg text{font-size:11px;fill:#333}svg .grid{stroke:#eee}svg .axis{stroke:#999}
.params td:last-child{white-space:normal}.events{table-layout:fixed}.events th.names,.events td.names{text-align:left;white-space:normal;vertical-align:top}
.events td{vertical-align:top}
`;

/** Fall of each value from the running peak, percent (0 at a new peak). */
export function drawdowns(
  values: readonly { date: string; value: number }[],
): { date: string; value: number }[] {
  let peak = Number.NEGATIVE_INFINITY;
  return values.map((p) => {
    peak = Math.max(peak, p.value);
    return { date: p.date, value: peak > 0 ? (p.value / peak - 1) * 100 : 0 };
  });
}

/** Change of each case's value over each calendar year of the window (first year from the start). */
function calendarTableHtml(
  result: Readonly<Record<string, BacktestCaseResult>>,
  names: readonly string[],
): string {
  const years = new Map<string, Map<string, number>>();
  for (const n of names) {
    const values = result[n]!.values;
    let base = values[0]?.value ?? Number.NaN;
    let last = base;
    let year = values[0]?.date.slice(0, 4) ?? "";
    const put = () => {
      if (!years.has(year)) years.set(year, new Map());
      years.get(year)!.set(n, last / base - 1);
    };
    for (const p of values.slice(1)) {
      const y = p.date.slice(0, 4);
      if (y !== year) {
        put();
        base = last;
        year = y;
      }
      last = p.value;
    }
    if (values.length > 1) put();
  }
  const pct = (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? "" : `${(v * 100).toFixed(2)}%`;
  return `<table><tr><th>Year</th>${names.map((n) => `<th>${escapeHtml(n)}</th>`).join("")}</tr>${[
    ...years.keys(),
  ]
    .sort()
    .map(
      (y) =>
        `<tr><td>${escapeHtml(y)}</td>${names.map((n) => `<td>${pct(years.get(y)!.get(n))}</td>`).join("")}</tr>`,
    )
    .join("")}</table>`;
}

/** A row's label cell; a label the terminal indents (a part of the row above it) is indented here too. */
function labelCell(label: string): string {
  return /^\s/.test(label)
    ? `<td class="part">${escapeHtml(label.trim())}</td>`
    : `<td>${escapeHtml(label)}</td>`;
}

/**
 * The tax section, first in the report: the tax effect against pre_tax and its parts per tax-managed case (with the
 * pre-tax part and the tax alpha they add up to, the figures against the benchmark), each case's years, the
 * assumptions. Results stored before the attribution existed get a note instead.
 */
function taxSectionHtml(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const names = taxCaseNames(result);
  const out = ['<section id="tax">', "<h2>Tax effect against pre_tax</h2>"];
  if (names.length === 0) {
    out.push(
      "<p>This result was stored before lotwise split the tax alpha into its tax and pre-tax parts; run the backtest again to see them.</p>",
      "</section>",
    );
    return out.join("\n");
  }
  const assumptions = assumptionsText(result);
  out.push(
    `<p class="assumptions">${escapeHtml(assumptions)}</p>`,
    '<p class="muted">Annualized, in percent a year. The parts add up: tax effect = harvest value + deferral and character + liquidation recapture; after-tax active return (the tax alpha) = pre-tax active return + tax effect.</p>',
    `<table><tr><th></th>${names.map((n) => `<th>${escapeHtml(n)}</th>`).join("")}</tr>${taxRows(result)
      .map(
        ([label, f]) =>
          `<tr>${labelCell(label)}${names.map((n) => `<td>${escapeHtml(f(result[n]!))}</td>`).join("")}</tr>`,
      )
      .join("")}</table>`,
  );
  for (const n of names)
    out.push(
      `<h3>${escapeHtml(n)} by year (USD)</h3>`,
      `<table><tr>${TAX_YEAR_HEADERS.map(([, h]) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>${taxYearRows(
        result[n]!,
        referenceOf(result, n),
      )
        .map((row) => `<tr>${TAX_YEAR_HEADERS.map(([k]) => `<td>${escapeHtml(row[k])}</td>`).join("")}</tr>`)
        .join("")}</table>`,
    );
  if (priceReturnOnly(result))
    out.push(
      "<p>Price return: the market data carry no dividends, so every return in this report excludes them.</p>",
    );
  out.push("</section>");
  return out.join("\n");
}

/**
 * The report as one HTML document.
 * @example writeFileSync("report.html", renderBacktestReportHtml(job, { generatedAt: new Date().toISOString() }));
 */
export function renderBacktestReportHtml(
  job: BacktestJob,
  options: { title?: string; generatedAt?: string; account?: string } = {},
): string {
  const r = job.resolved_params;
  const title =
    options.title ??
    (options.account
      ? `Backtest of ${options.account}, ${r.start_date} to ${r.end_date}`
      : `Backtest ${job.id}`);
  const params: [string, string][] = [
    ["Job", job.id],
    ...(options.account ? ([["Account", options.account]] as [string, string][]) : []),
    ["Status", statusLine(job)],
    ["Window", `${r.start_date} to ${r.end_date} (${r.rebalance_period.toLowerCase()})`],
    ["Starting NAV (USD)", money(r.starting_nav)],
    ["Tax gamma", String(r.tax_gamma)],
    ["Harvest threshold", `${r.tax_loss_threshold_bps} bps`],
    ["Loss usage", lossUsageText(r.loss_usage ?? "account_only")],
    ["Liquidate at end", (r.liquidate_at_end ?? true) ? "yes" : "no"],
    ["Basis reset (tax_managed)", basisResetText(r.basis_reset_max_gain)],
    ["Long-short TLH factor", job.params.ls_tlh_factor ?? "none"],
    ["Created", job.created_at],
    ["Started", job.started_at ?? ""],
    ["Finished", job.finished_at ?? ""],
  ];
  const body: string[] = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="muted">lotwise backtest report${options.generatedAt ? `, generated ${escapeHtml(options.generatedAt)}` : ""}. <span class="status-${escapeHtml(job.status)}">${escapeHtml(job.status)}</span></p>`,
  ];
  const paramsHtml = [
    "<h2>Parameters</h2>",
    // Values wrap (long texts such as the loss usage): the table keeps to the page's width.
    `<table class="params">${params.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join("")}</table>`,
  ];
  if (job.status === "SUCCESS" && job.result) {
    const names = caseOrder(job.result);
    const result = job.result;
    const priceOnly = priceReturnOnly(result);
    const kind = priceOnly ? " (price return)" : "";
    body.push(taxSectionHtml(result), ...paramsHtml);
    body.push(
      "<h2>Value of the portfolio by case (USD)</h2>",
      svgLineChart(
        names.map((n) => ({ name: n, points: result[n]!.values })),
        { title: "Value by case" },
      ),
      "<h2>Drawdown by case (fall from the running peak of the value)</h2>",
      svgLineChart(
        names.map((n) => ({ name: n, points: drawdowns(result[n]!.values) })),
        { title: "Drawdown by case" },
      ),
      `<h2>Annualized returns before and after tax${escapeHtml(kind)}</h2>`,
      svgReturnBars(result, "Annualized returns by case"),
      `<h2>Calendar years: change of value${escapeHtml(kind)}, taxes paid from the account included</h2>`,
      calendarTableHtml(result, names),
      "<h2>Summary by case</h2>",
      `<table><tr><th></th>${names.map((n) => `<th>${escapeHtml(n)}</th>`).join("")}</tr>${summaryRows(
        priceOnly,
        againstBenchmark(result),
      )
        .map(
          ([label, f]) =>
            `<tr>${labelCell(label)}${names.map((n) => `<td>${escapeHtml(f(result[n]!))}</td>`).join("")}</tr>`,
        )
        .join("")}</table>`,
      `<h2>Cases</h2><table>${names
        .map(
          (n) =>
            `<tr><td>${escapeHtml(n)}</td><td style="text-align:left;white-space:normal">${escapeHtml(result[n]!.description)}</td></tr>`,
        )
        .join("")}</table>`,
    );
  } else if (job.status === "FAILURE") {
    body.push(...paramsHtml, "<h2>Error</h2>", `<p>${escapeHtml(job.error_message ?? "")}</p>`);
  } else {
    body.push(...paramsHtml, `<p>The job has not finished yet (${escapeHtml(statusLine(job))}).</p>`);
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body.join("\n")}
</body></html>
`;
}

/**
 * Returns keyed by their period end, compounded over the periods ending on `ends` (each from the previous end,
 * exclusive, to its end, inclusive): a monthly benchmark series becomes quarterly beside a quarterly theme. A period
 * with no return of the series inside it is left out; returns after the last end are ignored.
 * @example atThemePeriods(["2024-03-28"], { "2024-01-31": 0.1, "2024-02-29": 0.1, "2024-03-28": 0 }) // 0.21
 */
export function atThemePeriods(
  ends: readonly string[],
  returns: Readonly<Record<string, number>>,
): Record<string, number> {
  const dated = Object.entries(returns).sort(([a], [b]) => (a < b ? -1 : 1));
  const out: Record<string, number> = {};
  let j = 0;
  for (const end of ends) {
    let growth = 1;
    let seen = false;
    while (j < dated.length && dated[j]![0] <= end) {
      growth *= 1 + dated[j]![1];
      seen = true;
      j += 1;
    }
    if (seen) out[end] = growth - 1;
  }
  return out;
}

/**
 * `lotwise themes backtest THEME --html FILE`: a self-contained report of a theme backtest — the window and
 * benchmark, the growth of 1 for the theme and the benchmark, both daily (the benchmark's `backtest_values`; from a
 * service without them, compounded from its period returns at the theme's period ends),
 * the summary against the benchmark, period returns and rebalance events. Inline SVG, nothing fetched.
 * @example writeFileSync("theme.html", renderThemeBacktestReportHtml(result, { theme: "Dividend tech" }));
 */
export function renderThemeBacktestReportHtml(
  result: ThemeBacktestResult,
  options: { title?: string; theme?: string; generatedAt?: string } = {},
): string {
  const title = options.title ?? `Theme backtest${options.theme ? ` of ${options.theme}` : ""}`;
  const pct = (v: number | string | null | undefined) =>
    v === null || v === undefined || !Number.isFinite(Number(v)) ? "n/a" : `${(Number(v) * 100).toFixed(2)}%`;
  const num = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));
  const values = Object.entries(result.theme.backtest_values).sort(([a], [b]) => (a < b ? -1 : 1));
  const series = [{ name: "theme", points: values.map(([date, value]) => ({ date, value })) }];
  // The benchmark at the theme's frequency: its returns compounded over each of the theme's periods.
  const benchReturns = result.benchmark
    ? atThemePeriods(Object.keys(result.theme.backtest_returns).sort(), result.benchmark.backtest_returns)
    : {};
  const daily = result.benchmark?.backtest_values;
  if (result.benchmark && daily !== undefined && Object.keys(daily).length > 0) {
    // Daily, as the theme: from the first date the benchmark covers, at the theme's value on that date.
    const bench = Object.entries(daily).sort(([a], [b]) => (a < b ? -1 : 1));
    const start = result.theme.backtest_values[bench[0]![0]] ?? 1;
    series.push({
      name: `benchmark ${result.benchmark.identifier}`,
      points: bench.map(([date, value]) => ({ date, value: start * value })),
    });
  } else if (result.benchmark && values.length > 0) {
    // A service without daily benchmark values: its growth of 1 over the theme's period ends.
    let level = 1;
    const points = [{ date: values[0]![0], value: 1 }];
    for (const [date, r] of Object.entries(benchReturns).sort(([a], [b]) => (a < b ? -1 : 1))) {
      level *= 1 + r;
      points.push({ date, value: level });
    }
    series.push({ name: `benchmark ${result.benchmark.identifier}`, points });
  }
  const first = values[0]?.[0] ?? "";
  const last = values[values.length - 1]?.[0] ?? "";
  const rows: [string, string][] = [
    ...(options.theme ? ([["Theme", options.theme]] as [string, string][]) : []),
    ["Window", `${first} to ${last}`],
    ["Rebalances", String(result.rebalance_events.length)],
    ["Theme return since inception", pct(result.theme.since_inception_returns)],
  ];
  if (result.summary) {
    const m = result.summary.risk_metrics;
    rows.push(
      ["Benchmark", result.benchmark?.identifier ?? ""],
      ["Benchmark return", pct(result.summary.benchmark_return)],
      ["Relative return", pct(result.summary.relative_return)],
      ["Beta", num(m.beta)],
      ["Sharpe", num(m.sharpe)],
      ["Volatility (annualized)", pct(m.volatility)],
      ["Max drawdown", pct(m.max_drawdown)],
    );
    if (result.summary.benchmark_coverage_note)
      rows.push(["Coverage", result.summary.benchmark_coverage_note]);
  }
  const periods = Object.entries(result.theme.backtest_returns).sort(([a], [b]) => (a < b ? -1 : 1));
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="muted">lotwise theme backtest report${options.generatedAt ? `, generated ${escapeHtml(options.generatedAt)}` : ""}.</p>`,
    "<h2>Summary</h2>",
    `<table>${rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join("")}</table>`,
    "<h2>Growth of 1</h2>",
    svgLineChart(series, { title: "Growth of 1" }),
    "<h2>Period returns</h2>",
    `<table><tr><th>Period end</th><th>Theme</th><th>Benchmark</th><th>Cumulative</th></tr>${periods
      .map(
        ([d, r]) =>
          `<tr><td>${escapeHtml(d)}</td><td>${pct(r)}</td><td>${benchReturns[d] === undefined ? "" : pct(benchReturns[d])}</td><td>${pct(result.theme.cumulative_backtest_returns[d])}</td></tr>`,
      )
      .join("")}</table>`,
    "<h2>Rebalance events</h2>",
    `<table class="events"><colgroup><col><col><col style="width:40%"><col style="width:40%"></colgroup><tr><th>Date</th><th>Names</th><th class="names">Added</th><th class="names">Removed</th></tr>${result.rebalance_events
      .map(
        (e) =>
          `<tr><td>${escapeHtml(e.date)}</td><td>${e.constituent_count}</td><td class="names">${escapeHtml(e.added.map((a) => a.symbol).join(" "))}</td><td class="names">${escapeHtml(e.removed.map((a) => a.symbol).join(" "))}</td></tr>`,
      )
      .join("")}</table>`,
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body.join("\n")}
</body></html>
`;
}
