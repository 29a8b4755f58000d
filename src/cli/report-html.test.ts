import { describe, expect, it } from "vitest";
import { type BacktestJob, CONTRACT_EXAMPLES, type ThemeBacktestResult } from "../contract/index.js";
import { renderTaxSection } from "./backtest-render.js";
import {
  escapeHtml,
  niceTicks,
  renderBacktestReportHtml,
  renderThemeBacktestReportHtml,
  svgLineChart,
} from "./report-html.js";

const job = CONTRACT_EXAMPLES.BacktestJob as BacktestJob;

describe("HTML backtest report", () => {
  it("is one self-contained document: inline SVG charts, no script, no external resource, no URL", () => {
    const html = renderBacktestReportHtml(job, { generatedAt: "2025-02-03T10:05:00Z" });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    // The value and drawdown charts (one polyline per case each) and the return bars.
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html.match(/<polyline /g)).toHaveLength(4);
    expect(html.match(/<rect [^>]*><title>/g)).toHaveLength(4);
  });

  it("shows the parameters and each case's figures", () => {
    const html = renderBacktestReportHtml(job);
    expect(html).toContain("<td>Window</td><td>2020-01-02 to 2020-03-31 (monthly)</td>");
    expect(html).toContain("<th>tax_managed</th><th>pre_tax</th>");
    // tax_managed ending value 812,345.67 and tax alpha 412.5 bps; pre_tax has no tax alpha.
    expect(html).toContain("<td>Ending value (USD)</td><td>812,345.67</td><td>812,345.67</td>");
    expect(html).toContain("<td>Tax alpha vs pre_tax (after-tax active)</td><td>412.5 bps</td><td>n/a</td>");
    expect(html).toContain("<td>Tracking error against SP500</td><td>0.61%</td>");
    expect(html).toContain('<span class="status-SUCCESS">SUCCESS</span>');
    // Long values (the loss usage, the basis reset) wrap inside the page's width.
    expect(html).toContain('<table class="params">');
    expect(html).toContain(".params td:last-child{white-space:normal}");
    expect(html).toContain("<td>Basis reset (tax_managed)</td><td>off</td>");
  });

  it("opens with the tax section: tax effect and its parts (in percent a year), years, pre-tax and tracking against the benchmark, assumptions", () => {
    const html = renderBacktestReportHtml(job, { account: "Smith family trust" });
    expect(html).toContain("<title>Backtest of Smith family trust, 2020-01-02 to 2020-03-31</title>");
    // Parsed: the headings in document order; the first one is the tax section's, before any chart.
    const headings = [...html.matchAll(/<h([23])[^>]*>(.*?)<\/h\1>/g)].map((m) => m[2]!);
    expect(headings[0]).toBe("Tax effect against pre_tax");
    expect(headings.indexOf("Parameters")).toBeGreaterThan(0);
    const section = html.slice(html.indexOf('<section id="tax">'), html.indexOf("</section>"));
    expect(html.indexOf('<section id="tax">')).toBeLessThan(html.indexOf("<svg"));
    expect(html.indexOf('<section id="tax">')).toBeLessThan(html.indexOf("<h2>Parameters</h2>"));
    const cells = (label: string) =>
      [...section.matchAll(new RegExp(`<tr><td(?: class="part")?>${label}</td>(.*?)</tr>`, "g"))].map((m) =>
        [...m[1]!.matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]),
      );
    // Only tax_managed manages taxes in the example; its parts: 5.12 + 0.23 - 1.23 = 4.13 (rounded display).
    expect(cells("Tax effect vs pre_tax, annualized")).toEqual([["4.13%/y"]]);
    // The figures are shown in percent a year (the JSON's decimal fractions are not what the reader sees).
    expect(section).toContain("Annualized, in percent a year.");
    expect(renderTaxSection(job.result!)).toContain("Tax effect (annualized, in percent a year;");
    expect(section + renderTaxSection(job.result!)).not.toContain("decimal fractions");
    expect(cells("harvest value")).toEqual([["5.12%/y"]]);
    // The parts are indented under the figure they add up to, as in the terminal.
    expect(section).toContain('<tr><td class="part">harvest value</td>');
    expect(section).toContain("<tr><td>Tax effect vs pre_tax, annualized</td>");
    expect(cells("liquidation recapture")).toEqual([["-1.23%/y"]]);
    expect(cells("= After-tax active return vs pre_tax \\(tax alpha\\)")).toEqual([["4.13%/y (412.5 bps)"]]);
    expect(cells("Pre-tax active return against SP500")).toEqual([["-0.21%/y"]]);
    expect(cells("Tracking error against SP500")).toEqual([["0.61%"]]);
    // Year by year: 2020, the liquidation, the total.
    expect(cells("2020")).toEqual([
      ["0.00", "61,240.18", "0.00", "0.00", "61,240.18", "-22,658.87", "22,658.87"],
    ]);
    expect(cells("liquidation")[0]![5]).toBe("6,204.54");
    expect(cells("total")[0]![6]).toBe("16,454.33");
    expect(section).toContain(
      "Assumptions: 37.0% short-term / 20.0% long-term rates; losses: account only ($3,000 a year against ordinary income, the rest carried forward); every position sold and taxed at the end.",
    );
  });

  it("says price return wherever a return is shown when the data carry no dividends", () => {
    const priceOnly: BacktestJob = {
      ...job,
      result: Object.fromEntries(
        Object.entries(job.result!).map(([n, c]) => [n, { ...c, return_basis: "price_return" as const }]),
      ),
    };
    const html = renderBacktestReportHtml(priceOnly);
    expect(html).toContain("<td>Pre-tax return (price return), annualized</td>");
    expect(html).toContain("<td>After-tax return (price return)</td>");
    expect(html).toContain("Annualized returns before and after tax (price return)");
    expect(html).toContain("Price return: the market data carry no dividends");
    expect(renderBacktestReportHtml(job)).not.toContain("price return");
  });

  it("keeps a stored result without attribution readable and says why the split is missing", () => {
    const old: BacktestJob = {
      ...job,
      result: Object.fromEntries(
        Object.entries(job.result!).map(([n, c]) => {
          const { attribution: _a, assumptions: _s, tax_years: _y, ...rest } = c;
          return [n, rest];
        }),
      ),
    };
    const html = renderBacktestReportHtml(old);
    expect(html).toContain("run the backtest again to see them");
    expect(html).toContain("<td>Tax alpha vs pre_tax (after-tax active)</td><td>412.5 bps</td>");
  });

  it("escapes text that comes from the job", () => {
    const evil: BacktestJob = {
      ...job,
      status: "FAILURE",
      result: null,
      error_message: '<img src=x onerror="alert(1)">',
    };
    const html = renderBacktestReportHtml(evil, { title: "A & B <c>" });
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain("<title>A &amp; B &lt;c&gt;</title>");
    expect(html).not.toContain("<img");
  });

  it("says a job that has not finished has no results yet", () => {
    const running: BacktestJob = { ...job, status: "RUNNING", result: null, finished_at: null };
    const html = renderBacktestReportHtml(running);
    expect(html).toContain("The job has not finished yet (RUNNING 3/3 periods (last 2020-03-31)).");
    expect(html).not.toContain("<svg");
  });
});

describe("chart pieces", () => {
  it("picks round tick steps (1, 2, 2.5, 5 x 10^k)", () => {
    // raw step 0.25 -> 0.25
    expect(niceTicks(0, 1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    // raw step (1e6 - 812345) / 4 = 46913.75 -> 50000, from ceil(812345 / 50000) x 50000 = 850000
    expect(niceTicks(812_345, 1_000_000)).toEqual([850_000, 900_000, 950_000, 1_000_000]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });

  it("places the points of a line chart inside the plot area", () => {
    const svg = svgLineChart(
      [
        {
          name: "x",
          points: [
            { date: "2024-01-31", value: 0 },
            { date: "2024-02-29", value: 1 },
          ],
        },
      ],
      { title: "t", width: 200, height: 100 },
    );
    // Margins left 64, right 16, top 16, bottom 48: x from 64 to 184, y from 52 (value 0) to 16 (value 1).
    expect(svg).toContain('<polyline points="64,52 184,16"');
  });

  it("escapes the five HTML special characters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});

describe("HTML theme backtest report", () => {
  const result = CONTRACT_EXAMPLES.ThemeBacktestResult as ThemeBacktestResult;

  it("is self-contained and charts the theme and the benchmark's growth of 1", () => {
    const html = renderThemeBacktestReportHtml(result, { theme: "Dividend tech" });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:\/\/|<script|<link|<img|url\(/i);
    expect(html.match(/<svg /g)).toHaveLength(1);
    expect(html.match(/<polyline /g)).toHaveLength(2);
    expect(html).toContain("benchmark SPY:ARCX");
  });

  it("shows the summary and every period with the benchmark beside it", () => {
    const html = renderThemeBacktestReportHtml(result);
    expect(html).toContain("<td>Window</td><td>2024-01-02 to 2024-06-28</td>");
    expect(html).toContain("<td>Theme return since inception</td><td>5.61%</td>");
    expect(html).toContain("<td>Relative return</td><td>-9.10%</td>");
    expect(html).toContain("<td>Beta</td><td>1.320</td>");
    // 2024-06-28: theme -2.30%, benchmark 3.90%, cumulative 5.61%.
    expect(html).toContain("<tr><td>2024-06-28</td><td>-2.30%</td><td>3.90%</td><td>5.61%</td></tr>");
    // One rebalance on 2024-03-28: two names, EQIX added, none removed.
    expect(html).toMatch(/<tr><td>2024-03-28<\/td><td>2<\/td><td [^>]*>EQIX<\/td><td [^>]*><\/td><\/tr>/);
  });

  it("puts the benchmark at the theme's frequency: monthly returns compounded into each theme period", () => {
    const monthly: ThemeBacktestResult = {
      ...result,
      benchmark: {
        identifier: "SPY:ARCX",
        // Against theme periods ending 2024-03-28 and 2024-06-28 (the example's own ends, read below).
        backtest_returns: {
          "2024-01-31": 0.01,
          "2024-02-29": 0.02,
          "2024-03-28": -0.01,
          "2024-04-30": 0.03,
          "2024-05-31": 0,
          "2024-06-28": 0.01,
        },
      },
    };
    const ends = Object.keys(result.theme.backtest_returns).sort();
    expect(ends.slice(-2)).toEqual(["2024-03-28", "2024-06-28"]);
    const html = renderThemeBacktestReportHtml(monthly, { theme: "Dividend tech" });
    expect(html).toContain("<title>Theme backtest of Dividend tech</title>");
    // 1.01 x 1.02 x 0.99 - 1 = 1.99% (1.9898%); 1.03 x 1 x 1.01 - 1 = 4.03%.
    expect(html).toMatch(/<tr><td>2024-03-28<\/td><td>[^<]*<\/td><td>1\.99%<\/td>/);
    expect(html).toMatch(/<tr><td>2024-06-28<\/td><td>[^<]*<\/td><td>4\.03%<\/td>/);
    // The growth chart: one benchmark point per theme date (start included), not one per month.
    const lines = [...html.matchAll(/<polyline points="([^"]+)"/g)].map((m) => m[1]!.split(" ").length);
    expect(lines[1]).toBe(lines[0]);
    // Added and removed: header and cells left-aligned in columns of fixed width.
    expect(html).toContain('<th class="names">Added</th><th class="names">Removed</th>');
  });

  it("charts a benchmark with daily values daily, beside the theme's daily values, from the theme's level", () => {
    const daily: ThemeBacktestResult = {
      ...result,
      theme: {
        ...result.theme,
        backtest_values: { "2024-01-02": 1, "2024-01-03": 1.02, "2024-01-04": 1.01, "2024-01-05": 1.05 },
      },
      benchmark: {
        identifier: "SPY:ARCX",
        backtest_returns: result.benchmark!.backtest_returns,
        // Covers from the second date on: drawn from the theme's 1.02 there.
        backtest_values: { "2024-01-03": 1, "2024-01-04": 1.01, "2024-01-05": 0.99 },
      },
    };
    const html = renderThemeBacktestReportHtml(daily);
    const [theme, bench] = [...html.matchAll(/<polyline points="([^"]+)"/g)].map((m) =>
      m[1]!.split(" ").map((p) => p.split(",").map(Number) as [number, number]),
    ) as [[number, number][], [number, number][]];
    expect(theme).toHaveLength(4);
    expect(bench).toHaveLength(3);
    expect(bench.map((p) => p[0])).toEqual(theme.slice(1).map((p) => p[0]));
    expect(bench[0]![1]).toBeCloseTo(theme[1]![1], 9); // 1.02 both: the lines meet where the benchmark starts
    // 1.02 x 1.01 = 1.0302 against the theme's 1.01 (below it on the screen: larger y); 1.02 x 0.99 = 1.0098.
    expect(bench[1]![1]).toBeLessThan(theme[2]![1]);
    expect(bench[2]![1]).toBeGreaterThan(theme[3]![1]);
  });

  it("compounds the benchmark's period returns into its growth series", () => {
    // Benchmark: 1, 1.104, 1.104 x 1.039 = 1.147056; theme: 1, 1.081, 1.0561. Same dates, so same x; the chart's
    // y axis is linear, so the gaps between the two lines at each date are in the ratio 0 : 0.023 : 0.090956.
    const html = renderThemeBacktestReportHtml(result);
    const lines = [...html.matchAll(/<polyline points="([^"]+)"/g)].map((m) =>
      m[1]!.split(" ").map((p) => p.split(",").map(Number) as [number, number]),
    );
    const [theme, bench] = lines as [[number, number][], [number, number][]];
    expect(bench.map((p) => p[0])).toEqual(theme.map((p) => p[0]));
    const gap = theme.map((p, k) => p[1] - bench[k]![1]);
    expect(gap[0]).toBeCloseTo(0, 1);
    expect(gap[2]! / gap[1]!).toBeCloseTo(0.090956 / 0.023, 1);
  });
});
