import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { caughtAsync } from "../../test/helpers/caught.js";
import {
  type ThemeBacktestResult,
  type ThemeMethodology,
  type ThemeMethodologyInput,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
  themeSchema,
} from "../contract/index.js";
import { DataError, NotFoundError, ValidationError } from "../core/errors.js";
import type { ThemeDefinition } from "../core/themes/index.js";
import { generateMarket, type SyntheticMarket, writeSyntheticMarket } from "../market/synthetic/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import {
  backtestTheme,
  createTheme,
  evaluateTheme,
  getTheme,
  getThemeConstituents,
  listThemes,
  reviseTheme,
} from "./themes.js";

const TECH_DIVIDEND: ThemeMethodologyInput = {
  name: "US large tech",
  description: "Largest US listings by market cap, capped",
  universe: { preset: "us_all" },
  filters: ["market_cap > 0"],
  score: "market_cap",
  selection: { mode: "top_n", value: 20 },
  weighting: { scheme: "market_cap", max_weight: 0.1 },
  rules: { rebalancing_period: "MONTHLY" },
};

let store: SqliteStore;
let market: SyntheticMarket;
let ctx: ServiceContext;
let org: string;
let other: string;

beforeAll(async () => {
  store = openSqliteStore(":memory:");
  market = generateMarket({
    seed: 11,
    securities: 120,
    years: 3,
    endDate: "2024-12-31",
    lateListingShare: 0.2,
  });
  writeSyntheticMarket(market, store.engine.market);
  ctx = { store, clock: () => new Date("2025-01-15T12:00:00Z") };
  org = (await store.organizations.create("Alpha Advisors")).uuid;
  other = (await store.organizations.create("Beta Wealth")).uuid;
});
afterAll(() => store.close());

describe("theme methodology types", () => {
  it("accepts the contract's methodology where the core expects a definition", async () => {
    expectTypeOf<ThemeMethodology>().toExtend<ThemeDefinition>();
  });
});

describe("createTheme, getTheme, listThemes, reviseTheme", () => {
  it("creates a theme whose read shape matches the contract, with defaults filled in", async () => {
    const theme = await createTheme(ctx, org, {
      ...TECH_DIVIDEND,
      filters: undefined,
      score: undefined,
    } as never);
    expect(themeSchema.parse(theme)).toEqual(theme);
    expect(theme.methodology.filters).toEqual([]);
    expect(theme.methodology.score).toBe("market_cap");
    expect(theme.description).toBe("Largest US listings by market cap, capped");
    expect(await getTheme(ctx, org, theme.uuid)).toEqual(theme);
    expect((await listThemes(ctx, org)).map((t) => t.uuid)).toContain(theme.uuid);
  });

  it("keeps themes inside their organization", async () => {
    const theme = await createTheme(ctx, org, TECH_DIVIDEND);
    const e = await caughtAsync(() => getTheme(ctx, other, theme.uuid));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.code).toBe("theme_not_found");
    expect(await listThemes(ctx, other)).toEqual([]);
  });

  it("rejects an invalid expression with its path and a suggestion", async () => {
    const e = await caughtAsync(() =>
      createTheme(ctx, org, { ...TECH_DIVIDEND, filters: ["dividend_yeild > 1%"] }),
    );
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.code).toBe("invalid_expression");
    expect((e as ValidationError).issues).toEqual([
      {
        path: "filters[0]",
        message: "Unknown field 'dividend_yeild' at position 0; did you mean 'dividend_yield'?",
      },
    ]);
  });

  it("rejects an unknown preset, listing the known ones", async () => {
    const e = await caughtAsync(() =>
      createTheme(ctx, org, { ...TECH_DIVIDEND, universe: { preset: "us_everything" } }),
    );
    expect(e.code).toBe("invalid_methodology");
    expect((e as ValidationError).issues[0]!.message).toMatch(
      /^unknown universe preset 'us_everything'; known presets: us_large_cap, /,
    );
  });

  it("rejects a malformed body through the contract schema", async () => {
    const e = await caughtAsync(() =>
      createTheme(ctx, org, { ...TECH_DIVIDEND, selection: { mode: "top_n" } }),
    );
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).issues[0]!.path).toBe("selection.value");
  });

  it("revises a theme field by field and moves the revision forward", async () => {
    const theme = await createTheme(ctx, org, TECH_DIVIDEND);
    const revised = await reviseTheme(ctx, org, theme.uuid, {
      selection: { mode: "top_n", value: 10 },
      name: "Top 10",
    });
    expect(revised.revision > theme.revision).toBe(true);
    expect(revised.name).toBe("Top 10");
    expect(revised.methodology.selection).toEqual({ mode: "top_n", value: 10 });
    expect(revised.methodology.weighting).toEqual(TECH_DIVIDEND.weighting);
    expect(themeSchema.parse(revised)).toEqual(revised);
    expect((await caughtAsync(() => reviseTheme(ctx, org, theme.uuid, { filters: ["pe >"] }))).code).toBe(
      "invalid_expression",
    );
  });
});

describe("evaluateTheme and getThemeConstituents (endpoint 7)", () => {
  it("answers snapshot_not_found before evaluation, the snapshot after, and again after a revision", async () => {
    const theme = await createTheme(ctx, org, TECH_DIVIDEND);
    const before = await caughtAsync(() => getThemeConstituents(ctx, org, theme.uuid));
    expect(before).toBeInstanceOf(NotFoundError);
    expect(before.code).toBe("snapshot_not_found");
    expect(before.message).toContain(`revision ${theme.revision} has not been evaluated`);

    const snapshot = await evaluateTheme(ctx, org, theme.uuid);
    expect(themeConstituentSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.as_of_date).toBe("2024-12-31"); // the last trading date before the clock's 2025-01-15
    expect(snapshot.revision).toBe(theme.revision);
    expect(snapshot.total_constituents).toBe(20);
    expect(snapshot.total_weight).toBeCloseTo(1, 12);
    for (const c of snapshot.constituents) expect(c.weight).toBeLessThanOrEqual(0.1 + 1e-12);
    expect(await getThemeConstituents(ctx, org, theme.uuid)).toEqual(snapshot);

    await reviseTheme(ctx, org, theme.uuid, { selection: { mode: "top_n", value: 5 } });
    expect((await caughtAsync(() => getThemeConstituents(ctx, org, theme.uuid))).code).toBe(
      "snapshot_not_found",
    );
    const again = await evaluateTheme(ctx, org, theme.uuid, { as_of_date: "2024-06-28" });
    expect(again.total_constituents).toBe(5);
    // 5 names under a 10% cap cannot sum to 1: equal weights.
    for (const c of again.constituents) expect(c.weight).toBeCloseTo(0.2, 12);
    expect((await getThemeConstituents(ctx, org, theme.uuid)).as_of_date).toBe("2024-06-28");
  });

  it("orders constituents by weight and picks the largest US caps as of the date", async () => {
    const theme = await createTheme(ctx, org, { ...TECH_DIVIDEND, weighting: { scheme: "market_cap" } });
    const snapshot = await evaluateTheme(ctx, org, theme.uuid, { as_of_date: "2024-06-28" });
    const caps = await store.market.characteristicsAsOf("market_cap", "2024-06-28");
    const usCaps = market.securities
      .filter((s) => s.currency === "USD" && caps.has(s.themeAssetId) && s.listedFrom! <= "2024-06-28")
      .map((s) => caps.get(s.themeAssetId)!)
      .sort((a, b) => b - a);
    const total = usCaps.slice(0, 20).reduce((a, b) => a + b, 0);
    expect(snapshot.constituents[0]!.score).toBe(usCaps[0]);
    expect(snapshot.constituents[0]!.weight).toBeCloseTo(usCaps[0]! / total, 12);
    expect(snapshot.constituents.every((c) => c.exchange === "XNYS" || c.exchange === "XNAS")).toBe(true);
  });

  it("never selects a security before its listing date", async () => {
    const late = market.securities.find((s) => s.listedFrom! > "2023-06-30" && s.currency === "USD")!;
    const theme = await createTheme(ctx, org, {
      ...TECH_DIVIDEND,
      universe: { expression: `theme_asset_id = '${late.themeAssetId}'` },
      filters: [],
      score: "1",
      weighting: { scheme: "equal" },
    });
    expect((await evaluateTheme(ctx, org, theme.uuid, { as_of_date: "2023-06-30" })).constituents).toEqual(
      [],
    );
    const after = await evaluateTheme(ctx, org, theme.uuid, { as_of_date: "2024-12-31" });
    expect(after.constituents.map((c) => c.theme_asset_id)).toEqual([late.themeAssetId]);
  });

  it("ignores characteristic values dated after the evaluation date", async () => {
    const small = openSqliteStore(":memory:");
    try {
      writeSyntheticMarket(
        generateMarket({ seed: 5, securities: 50, years: 1, endDate: "2024-12-31" }),
        small.engine.market,
      );
      const c: ServiceContext = { store: small, clock: () => new Date("2025-01-15T00:00:00Z") };
      const o = (await small.organizations.create("Gamma")).uuid;
      const theme = await createTheme(c, o, { ...TECH_DIVIDEND, selection: { mode: "top_n", value: 1 } });
      const d = "2024-10-31";
      const before = await evaluateTheme(c, o, theme.uuid, { as_of_date: d });
      const loser = (await small.market.securities({ currency: "USD" })).find(
        (s) => s.themeAssetId !== before.constituents[0]!.theme_asset_id,
      )!;
      // A giant market cap for another name, published the day after d.
      await small.market.insertCharacteristics([
        { themeAssetId: loser.themeAssetId, date: "2024-11-01", name: "market_cap", value: 1e15 },
      ]);
      expect((await evaluateTheme(c, o, theme.uuid, { as_of_date: d })).constituents).toEqual(
        before.constituents,
      );
      const later = await evaluateTheme(c, o, theme.uuid, { as_of_date: "2024-11-01" });
      expect(later.constituents[0]!.theme_asset_id).toBe(loser.themeAssetId);
    } finally {
      await small.close();
    }
  });

  it("answers theme_not_found for an unknown theme and no_market_data before any listing", async () => {
    expect(
      (await caughtAsync(() => evaluateTheme(ctx, org, "00000000-0000-4000-8000-000000000000"))).code,
    ).toBe("theme_not_found");
    const theme = await createTheme(ctx, org, TECH_DIVIDEND);
    const e = await caughtAsync(() => evaluateTheme(ctx, org, theme.uuid, { as_of_date: "1999-12-31" }));
    expect(e).toBeInstanceOf(DataError);
    expect(e.code).toBe("no_market_data");
  });
});

describe("backtestTheme (endpoint 8)", () => {
  let theme: string;
  let result: ThemeBacktestResult;

  beforeAll(async () => {
    theme = (await createTheme(ctx, org, { ...TECH_DIVIDEND, rules: { rebalancing_period: "QUARTERLY" } }))
      .uuid;
    result = await backtestTheme(ctx, org, theme, {
      start_date: "2023-01-01",
      end_date: "2024-12-31",
      benchmark: "SYNTH500",
    });
  });

  it("returns a result the contract accepts, with values from 1 and returns per rebalance period", async () => {
    expect(themeBacktestResultSchema.parse(result)).toEqual(result);
    const values = Object.entries(result.theme.backtest_values);
    expect(values[0]).toEqual(["2023-01-03", 1]);
    expect(values.at(-1)![0]).toBe("2024-12-31");
    // Quarter ends of 2023-2024 inside the window, then the last date.
    expect(Object.keys(result.theme.backtest_returns)).toEqual([
      "2023-03-31",
      "2023-06-30",
      "2023-09-29",
      "2023-12-29",
      "2024-03-28", // 2024-03-29 is Good Friday, a holiday of the synthetic calendar
      "2024-06-28",
      "2024-09-30",
      "2024-12-31",
    ]);
    // Period returns compound to the since-inception return, which is the last value minus 1.
    const compounded = Object.values(result.theme.backtest_returns).reduce((g, r) => g * (1 + r), 1) - 1;
    const last = values.at(-1)![1];
    expect(compounded).toBeCloseTo(last - 1, 12);
    expect(Number(result.theme.since_inception_returns)).toBeCloseTo(last - 1, 9);
    expect(result.theme.cumulative_backtest_returns["2024-12-31"]).toBeCloseTo(last - 1, 12);
  });

  it("records an event at inception and at each quarter end, with consistent membership", async () => {
    const events = result.rebalance_events;
    expect(events.map((e) => e.date)).toEqual([
      "2023-01-03",
      ...Object.keys(result.theme.backtest_returns).slice(0, -1),
    ]);
    expect(events[0]!.removed).toEqual([]);
    expect(events[0]!.added).toHaveLength(20);
    let members = new Set<string>();
    for (const e of events) {
      for (const a of e.added) expect(members.has(a.theme_asset_id)).toBe(false);
      for (const r of e.removed) expect(members.has(r.theme_asset_id)).toBe(true);
      members = new Set([...members, ...e.added.map((a) => a.theme_asset_id)]);
      for (const r of e.removed) members.delete(r.theme_asset_id);
      expect(members.size).toBe(e.constituent_count);
    }
  });

  it("compares with the benchmark over the same periods and reports sane risk figures", async () => {
    expect(result.benchmark!.identifier).toBe("SYNTH500");
    expect(Object.keys(result.benchmark!.backtest_returns)).toEqual(
      Object.keys(result.theme.backtest_returns),
    );
    const s = result.summary!;
    expect(s.benchmark_coverage_note).toBeNull();
    expect(s.relative_return).toBeCloseTo(s.portfolio_return - s.benchmark_return, 14);
    expect(s.portfolio_return).toBeCloseTo(Number(result.theme.since_inception_returns), 9);
    const m = s.risk_metrics;
    // Twenty large caps against the cap-weighted index of the largest 500 (all of them here): beta near 1.
    expect(m.beta!).toBeGreaterThan(0.7);
    expect(m.beta!).toBeLessThan(1.3);
    expect(m.volatility!).toBeGreaterThan(0.05);
    expect(m.volatility!).toBeLessThan(0.6);
    expect(m.max_drawdown!).toBeLessThanOrEqual(0);
    expect(Number.isFinite(m.sharpe!)).toBe(true);
  });

  it("matches a single security's own price path and its ticker benchmark exactly", async () => {
    const plain = market.securities.find(
      (s) =>
        s.currency === "USD" &&
        s.listedFrom === market.prices.dates[0] &&
        !market.splits.some((x) => x.themeAssetId === s.themeAssetId) &&
        !market.dividends.some((x) => x.themeAssetId === s.themeAssetId),
    )!;
    const single = (
      await createTheme(ctx, org, {
        ...TECH_DIVIDEND,
        universe: { expression: `theme_asset_id = '${plain.themeAssetId}'` },
        filters: [],
        weighting: { scheme: "equal" },
      })
    ).uuid;
    const r = await backtestTheme(ctx, org, single, {
      start_date: "2024-01-01",
      end_date: "2024-06-30",
      benchmark: plain.symbol,
    });
    const closes = await store.market.priceMatrix("2024-01-02", "2024-06-28", [plain.themeAssetId]);
    const p0 = closes.close[0]!;
    closes.dates.forEach((d, t) => {
      expect(r.theme.backtest_values[d]).toBeCloseTo(closes.close[t]! / p0, 12);
    });
    expect(r.benchmark!.identifier).toBe(plain.themeAssetId);
    // The benchmark's daily values (the same security) are the theme's, date by date.
    const bench = r.benchmark!.backtest_values!;
    expect(Object.keys(bench)).toEqual(Object.keys(r.theme.backtest_values));
    for (const [d, v] of Object.entries(r.theme.backtest_values)) expect(bench[d]).toBeCloseTo(v, 12);
    expect(r.summary!.risk_metrics.beta).toBeCloseTo(1, 10);
    expect(r.summary!.relative_return).toBeCloseTo(0, 12);
  });

  it("notes when the benchmark does not cover the window and restricts the summary to its span", async () => {
    const late = market.securities.find((s) => s.listedFrom! > "2023-03-01" && s.listedFrom! < "2023-09-01")!;
    const r = await backtestTheme(ctx, org, theme, {
      start_date: "2023-01-01",
      end_date: "2024-12-31",
      benchmark: late.themeAssetId,
    });
    expect(r.summary!.benchmark_coverage_note).toBe(
      `Benchmark ${late.themeAssetId} has data from ${late.listedFrom} to 2024-12-31 only, not the whole window 2023-01-03 to 2024-12-31; its returns, the summary and the risk metrics cover ${late.listedFrom} to 2024-12-31.`,
    );
    const values = result.theme.backtest_values;
    expect(r.summary!.portfolio_return).toBeCloseTo(
      values["2024-12-31"]! / values[late.listedFrom!]! - 1,
      12,
    );
    expect(Object.keys(r.benchmark!.backtest_returns).every((d) => d > late.listedFrom!)).toBe(true);
    // Its daily values start at 1 on its first covered date and go on to the window's end, every trading date.
    const daily = Object.keys(r.benchmark!.backtest_values!);
    expect(daily[0]).toBe(late.listedFrom);
    expect(r.benchmark!.backtest_values![late.listedFrom!]).toBe(1);
    expect(daily).toEqual(Object.keys(r.theme.backtest_values).filter((d) => d >= late.listedFrom!));
  });

  it("never holds a security before its listing date (point in time)", async () => {
    const all = (
      await createTheme(ctx, org, {
        ...TECH_DIVIDEND,
        filters: [],
        selection: { mode: "all" },
        weighting: { scheme: "equal" },
        rules: { rebalancing_period: "MONTHLY" },
      })
    ).uuid;
    const r = await backtestTheme(ctx, org, all, { start_date: "2022-01-01", end_date: "2024-12-31" });
    const listed = new Map(market.securities.map((s) => [s.themeAssetId, s.listedFrom!]));
    let lateSeen = 0;
    for (const e of r.rebalance_events)
      for (const a of e.added) {
        expect(listed.get(a.theme_asset_id)! <= e.date).toBe(true);
        if (listed.get(a.theme_asset_id)! > "2022-01-03") lateSeen++;
      }
    expect(lateSeen).toBeGreaterThan(0); // late listings do join, once listed
    expect(r.benchmark).toBeUndefined();
    expect(r.summary).toBeUndefined();
  });

  it("defaults the window to the 365 days before the latest trading date", async () => {
    const r = await backtestTheme(ctx, org, theme);
    const dates = Object.keys(r.theme.backtest_values);
    expect(dates.at(-1)).toBe("2024-12-31");
    // 2024-12-31 - 365 days = 2024-01-01 (2024 is a leap year), a holiday: the window opens on 2024-01-02.
    expect(dates[0]).toBe("2024-01-02");
  });

  it("has four distinct errors: unknown theme, invalid window, unknown benchmark, no data in the window", async () => {
    const unknown = await caughtAsync(() => backtestTheme(ctx, org, "00000000-0000-4000-8000-000000000000"));
    expect([unknown.constructor, unknown.code]).toEqual([NotFoundError, "theme_not_found"]);

    const reversed = await caughtAsync(() =>
      backtestTheme(ctx, org, theme, { start_date: "2024-06-01", end_date: "2024-01-01" }),
    );
    expect([reversed.constructor, reversed.code]).toEqual([ValidationError, "invalid_window"]);
    expect(reversed.message).toBe(
      "Invalid backtest window: start_date 2024-06-01 must be before end_date 2024-01-01",
    );
    const malformed = await caughtAsync(() => backtestTheme(ctx, org, theme, { start_date: "2024-02-30" }));
    expect(malformed.code).toBe("invalid_window");
    expect((malformed as ValidationError).issues[0]!.path).toBe("start_date");

    const bench = await caughtAsync(() => backtestTheme(ctx, org, theme, { benchmark: "NOPE500" }));
    expect([bench.constructor, bench.code]).toEqual([ValidationError, "unknown_benchmark"]);
    expect(bench.message).toBe(
      "Unknown benchmark 'NOPE500': it is neither an index identifier (known: SYNTH500, SYNTHTOTAL) nor a ticker or theme_asset_id of the security master.",
    );

    const empty = await caughtAsync(() =>
      backtestTheme(ctx, org, theme, { start_date: "1990-01-01", end_date: "1990-12-31" }),
    );
    expect([empty.constructor, empty.code]).toEqual([DataError, "no_data_in_window"]);
    expect(empty.message).toContain("the store holds prices from 2022-01-03 to 2024-12-31");
  });

  it("clips the window to the data when sizing it, and refuses a price panel that would be too large", async () => {
    const clipped = await backtestTheme(ctx, org, theme, {
      start_date: "1700-01-01",
      end_date: "2022-03-31",
    });
    expect(Object.keys(clipped.theme.backtest_values)[0]).toBe("2022-01-03");

    const wide = openSqliteStore(":memory:");
    try {
      writeSyntheticMarket(
        generateMarket({ seed: 9, securities: 50, years: 1, endDate: "2024-12-31" }),
        wide.engine.market,
      );
      // 750 listings known since 1900 (without prices here): 800 securities x ~32,600 weekdays > 20 million.
      const old = (await wide.market.securities())[0]!;
      await wide.market.upsertSecurities(
        Array.from({ length: 750 }, (_, k) => ({
          ...old,
          themeAssetId: `OLD${k}:XNYS`,
          symbol: `OLD${k}`,
          listedFrom: "1900-01-02",
        })),
      );
      const c: ServiceContext = { store: wide, clock: () => new Date("2025-01-15T00:00:00Z") };
      const o = (await wide.organizations.create("Wide")).uuid;
      const t = (await createTheme(c, o, TECH_DIVIDEND)).uuid;
      const e = await caughtAsync(() =>
        backtestTheme(c, o, t, { start_date: "1900-01-01", end_date: "2024-12-31" }),
      );
      expect(e.code).toBe("invalid_window");
      expect(e.message).toMatch(
        /spans about \d+ trading days of 800 securities \(\d+ million daily prices, at most 20 million\); shorten it$/,
      );
      expect(
        (await backtestTheme(c, o, t, { start_date: "2024-01-01", end_date: "2024-12-31" })).rebalance_events
          .length,
      ).toBe(12);
    } finally {
      await wide.close();
    }
  });

  it("resolves index identifiers case-insensitively", async () => {
    const r = await backtestTheme(ctx, org, theme, {
      start_date: "2024-01-01",
      end_date: "2024-03-31",
      benchmark: "synth500",
    });
    expect(r.benchmark!.identifier).toBe("SYNTH500");
  });
});
