import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backtestCaseResultSchema, backtestResolvedParamsSchema } from "../contract/index.js";
import { BacktestCancelledError } from "../core/backtest/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { openStore, type Store } from "../store/index.js";
import {
  type AccountBacktestParams,
  type AccountBacktestProgress,
  DEFAULT_TAX_LOSS_THRESHOLD_BPS,
  resolveBacktestParams,
  runAccountBacktest,
} from "./backtest-run.js";
import { createAccount, createClient } from "./clients.js";
import type { ServiceContext } from "./context.js";
import { buildDemo, type DemoResult } from "./demo.js";

describe("account backtest service over the demo store", () => {
  let store: Store;
  let ctx: ServiceContext;
  let demo: DemoResult;
  let org: string;

  beforeAll(() => {
    store = openStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = buildDemo(ctx, { securities: 120, years: 5 });
    org = demo.organization_uuid;
  });
  afterAll(() => store.close());

  const oneYear = (extra: Partial<AccountBacktestParams> = {}): AccountBacktestParams => ({
    start_date: "2024-12-31",
    end_date: "2025-12-31",
    rebalance_period: "MONTHLY",
    starting_nav: 500_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
    ...extra,
  });

  it("resolves defaults: three years to the last market date, the configuration's tax_gamma, the account's value", () => {
    const p = resolveBacktestParams(ctx, org, demo.account_uuid, {});
    expect(backtestResolvedParamsSchema.parse(p)).toEqual(p);
    expect(p.end_date).toBe("2025-12-31");
    expect(p.start_date).toBe("2022-12-31");
    expect(p.rebalance_period).toBe("MONTHLY");
    // The demo configuration says tax_gamma 1.
    expect(p.tax_gamma).toBe(1);
    expect(p.tax_loss_threshold_bps).toBe(DEFAULT_TAX_LOSS_THRESHOLD_BPS);
    // The demo account held lots bought 1,460 and 1,100 days before 2025-12-31 on the start date, plus cash.
    expect(p.starting_nav).toBeGreaterThan(25_000);
    const given = resolveBacktestParams(ctx, org, demo.account_uuid, { tax_gamma: 3, starting_nav: 2e6 });
    expect(given.tax_gamma).toBe(3);
    expect(given.starting_nav).toBe(2e6);
  });

  it("starts an account without holdings from 1,000,000 in cash", () => {
    const client = createClient(ctx, org, {});
    const empty = createAccount(ctx, org, client.uuid, { cash_value_usd: "0" });
    expect(resolveBacktestParams(ctx, org, empty.uuid, {}).starting_nav).toBe(1_000_000);
  });

  it("names the field of a window outside the market data", () => {
    const fail = (request: Parameters<typeof resolveBacktestParams>[3]) => {
      try {
        resolveBacktestParams(ctx, org, demo.account_uuid, request);
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as ValidationError).issues.map((i) => i.path);
      }
      throw new Error("expected a ValidationError");
    };
    expect(fail({ end_date: "2026-06-30" })).toEqual(["end_date"]);
    expect(fail({ start_date: "1999-01-04" })).toEqual(["start_date"]);
    expect(fail({ start_date: "2025-12-30", end_date: "2025-12-31" })).toEqual(["end_date"]);
  });

  it("answers an account of another organization as not found", () => {
    expect(() =>
      resolveBacktestParams(ctx, "00000000-0000-0000-0000-000000000000", demo.account_uuid, {}),
    ).toThrow(NotFoundError);
  });

  it("runs the four cases and returns contract-valid results", () => {
    const progress: AccountBacktestProgress[] = [];
    const result = runAccountBacktest(ctx, org, demo.account_uuid, oneYear({ ls_tlh_factor: "value" }), {
      onProgress: (p) => progress.push(p),
    });
    expect(Object.keys(result).sort()).toEqual(["benchmark", "long_short_tlh", "pre_tax", "tax_managed"]);
    for (const [name, r] of Object.entries(result)) {
      expect(backtestCaseResultSchema.parse(r), name).toEqual(r);
      expect(r.periods).toBe(12);
      expect(r.values).toHaveLength(13);
      expect(r.values[0]!.value).toBeCloseTo(500_000, 6);
      expect(r.start_date).toBe("2024-12-31");
    }
    expect(result.tax_managed!.tax_managed).toBe(true);
    expect(result.pre_tax!.tax_alpha_bps).toBeNull();
    expect(result.benchmark!.tracking_error).toBeNull();
    expect(typeof result.tax_managed!.tax_alpha_bps).toBe("number");
    expect(progress[0]).toEqual({ planned_periods: 12, completed_periods: 0, last_completed_period: null });
    expect(progress.at(-1)).toMatchObject({ planned_periods: 12, completed_periods: 12 });
    expect(progress.map((p) => p.completed_periods)).toEqual([...Array(13).keys()]);
  });

  it("starts the managed cases from the account's lots and the benchmark from cash", () => {
    const result = runAccountBacktest(ctx, org, demo.account_uuid, oneYear());
    // The pre-tax case sells the concentrated demo holdings into the index at once: large realized gains.
    const realized = (r: (typeof result)["pre_tax"]) =>
      r!.realized_long_term_gains + r!.realized_short_term_gains;
    expect(realized(result.pre_tax)).toBeGreaterThan(1000);
    expect(realized(result.tax_managed)).toBeLessThan(realized(result.pre_tax));
    expect(result.benchmark!.realized_long_term_gains).toBe(0);
  });

  it("is deterministic: the same parameters give the same bytes", () => {
    const a = JSON.stringify(runAccountBacktest(ctx, org, demo.account_uuid, oneYear()));
    const b = JSON.stringify(runAccountBacktest(ctx, org, demo.account_uuid, oneYear()));
    expect(a).toBe(b);
  });

  it("stops when the job asks to cancel", () => {
    let calls = 0;
    expect(() =>
      runAccountBacktest(ctx, org, demo.account_uuid, oneYear(), { shouldCancel: () => ++calls > 2 }),
    ).toThrow(BacktestCancelledError);
  });

  it("refuses parameters outside the contract's limits, naming them", () => {
    expect(() => runAccountBacktest(ctx, org, demo.account_uuid, oneYear({ tax_gamma: 101 }))).toThrow(
      /tax_gamma: 101 is outside 0..100/,
    );
  });
});
