import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import type { Currency } from "../core/data/types.js";
import type { Account, AssetClassSettingRead, HoldingsRead } from "./account.js";
import type { AssetAllocationRead, AssetAllocationWrite, TiltRead } from "./asset-allocation.js";
import type { AssetClass } from "./asset-class.js";
import type { BacktestCaseResult, BacktestJob, BacktestRequest } from "./backtest.js";
import type { IndustryMatch, IndustrySearchResponse, UniversePreset } from "./catalog.js";
import type { Client, ClientUpdate } from "./client.js";
import type { ErrorEnvelope } from "./error-envelope.js";
import { CONTRACT_EXAMPLES, type ContractExampleId } from "./examples.js";
import type { PortfolioConfigCreate, PortfolioConfigRead, PortfolioConfigWrite } from "./portfolio-config.js";
import type { FxCostBreakdown, ProposalOrder, ProposalRequest, ProposalResponse } from "./proposal.js";
import type { Rule } from "./rules.js";
import { CONTRACT_SCHEMAS } from "./schemas.js";
import type { TaxLotRead, TaxLotWrite } from "./tax-lot.js";
import type { TaxPreferencesRead, TaxPreferencesWrite } from "./tax-preferences.js";
import type {
  Theme,
  ThemeBacktestResult,
  ThemeConstituentSnapshot,
  ThemeMethodology,
  ThemeMethodologyInput,
} from "./theme.js";
import type { TickerReferenceRead, TickerReferenceWrite } from "./ticker.js";
import { parseOrThrow, toFieldIssues } from "./validation.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const exampleIds = Object.keys(CONTRACT_EXAMPLES) as ContractExampleId[];
const schemaOf = (id: ContractExampleId): z.ZodType => CONTRACT_SCHEMAS[id];
const clone = <T>(v: T): T => structuredClone(v);

function leafPaths(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...path, i]));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
  return [path];
}

function setAt<T>(value: T, path: Path, leaf: unknown): T {
  const out = clone(value) as Record<string | number, unknown>;
  let node = out;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = leaf;
  return out as T;
}

/** The first plain object inside a value (the example itself, or the first item of a list). */
function firstObjectPath(value: unknown): Path {
  return Array.isArray(value) ? [0] : [];
}

describe("examples", () => {
  it.each(exampleIds)("%s parses with its schema", (id) => {
    const result = schemaOf(id).safeParse(CONTRACT_EXAMPLES[id]);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(exampleIds)("%s rejects an unknown top-level key, naming it", (id) => {
    const example = CONTRACT_EXAMPLES[id];
    const at = firstObjectPath(example);
    const withExtra =
      at.length === 0 ? { ...(example as object), surprise: 1 } : setAt(example, [...at, "surprise"], 1);
    const result = schemaOf(id).safeParse(withExtra);
    expect(result.success).toBe(false);
    expect(toFieldIssues(result.error!).map((i) => i.path)).toContain(
      at.length === 0 ? "surprise" : "[0].surprise",
    );
  });

  it("never throws while parsing an example with any leaf replaced by junk (property)", () => {
    const junk = fc.oneof(
      fc.constantFrom("", "abc", "1e5", "-", "0.1.2", " 1", "2024-02-30", "NaN", "x".repeat(300)),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant([]),
      fc.constant({}),
    );
    for (const id of exampleIds) {
      const example = CONTRACT_EXAMPLES[id];
      const paths = leafPaths(example).filter((p) => p.length > 0);
      if (paths.length === 0) continue;
      fc.assert(
        fc.property(fc.constantFrom(...paths), junk, (path, leaf) => {
          schemaOf(id).safeParse(setAt(example, path, leaf));
          return true;
        }),
        { numRuns: 40 },
      );
    }
  });

  it("every nested object of every example is strict", () => {
    let checked = 0;
    // Add an unknown key to each nested object in turn; each must be reported at exactly that path.
    for (const id of exampleIds) {
      const example = CONTRACT_EXAMPLES[id] as Json;
      const objectPaths: Path[] = [];
      const walk = (v: Json, p: Path) => {
        if (Array.isArray(v)) {
          v.forEach((x, i) => {
            walk(x, [...p, i]);
          });
        } else if (v !== null && typeof v === "object") {
          // Free-form JSON (metadata, rule values) and date-keyed series are open by design.
          const last = p[p.length - 1];
          const open = ["metadata", "value", "capital_gains_reductions", "result"].includes(String(last));
          const series = Object.keys(v).some((k) => /^\d{4}-\d{2}-\d{2}$/.test(k));
          if (!open && !series) objectPaths.push(p);
          for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
        }
      };
      walk(example, []);
      for (const p of objectPaths) {
        const mutated = setAt(example, [...p, "zz_unknown"], 1);
        const result = schemaOf(id).safeParse(
          p.length === 0 ? { ...(example as object), zz_unknown: 1 } : mutated,
        );
        expect(result.success, `${id} at ${JSON.stringify(p)}`).toBe(false);
        checked++;
      }
    }
    // Guard against a walk that finds nothing: the examples hold well over a hundred nested objects.
    expect(checked).toBeGreaterThan(100);
  });
});

describe("proposal shapes", () => {
  const response = CONTRACT_EXAMPLES.ProposalResponse;

  it("accepts the empty string and null as an order reason, and an absent one", () => {
    const order = response.orders[1];
    for (const reason of ["", null, undefined])
      expect(CONTRACT_SCHEMAS.ProposalOrder.safeParse({ ...order, reason }).success).toBe(true);
  });

  it.each([
    ["type", "shares", "orders[0].type"],
    ["order_category", "short", "orders[0].order_category"],
    ["reason", "rebalance", "orders[0].reason"],
  ])("rejects an unknown %s naming orders[0]", (field, value, path) => {
    const bad = setAt(response, ["orders", 0, field], value);
    const issues = toFieldIssues(CONTRACT_SCHEMAS.ProposalResponse.safeParse(bad).error!);
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]!.message).toMatch(/Invalid option/);
  });

  it("rejects an FX currency outside USD, EUR, GBP, JPY, CAD", () => {
    const bad = setAt(response, ["orders", 1, "fx_cost_breakdown", "currency"], "CHF");
    const issues = toFieldIssues(CONTRACT_SCHEMAS.ProposalResponse.safeParse(bad).error!);
    expect(issues.map((i) => i.path)).toEqual(["orders[1].fx_cost_breakdown.currency"]);
  });

  it("requires tax_lots and fx_cost_breakdown keys even when null", () => {
    const { tax_lots: _lots, ...withoutLots } = response.orders[1];
    const issues = toFieldIssues(CONTRACT_SCHEMAS.ProposalOrder.safeParse(withoutLots).error!);
    expect(issues).toEqual([{ path: "tax_lots", message: "Required" }]);
  });

  it("rejects a ticker given twice in a request, pointing at the second", () => {
    expect(() =>
      parseOrThrow(CONTRACT_SCHEMAS.ProposalRequest, {
        optimized_weights: [
          { ticker: "AAPL:XNAS", weight: "0.5" },
          { ticker: "aapl:xnas", weight: "0.5" },
        ],
      }),
    ).toThrow(/optimized_weights\[1\]\.ticker: aapl:xnas is already given at optimized_weights\[0\]/);
  });

  it("rejects an empty list of weights", () => {
    expect(CONTRACT_SCHEMAS.ProposalRequest.safeParse({ optimized_weights: [] }).success).toBe(false);
  });
});

describe("backtest shapes", () => {
  const job = CONTRACT_EXAMPLES.BacktestJob;

  it("accepts a PENDING job with nothing done yet", () => {
    const pending = {
      ...job,
      status: "PENDING",
      progress: {
        planned_periods: 3,
        completed_periods: 0,
        last_completed_period: null,
        last_progress_at: null,
      },
      result: null,
      started_at: null,
      finished_at: null,
    };
    expect(CONTRACT_SCHEMAS.BacktestJob.safeParse(pending).success).toBe(true);
  });

  it("requires a result on SUCCESS and an error message on FAILURE", () => {
    const noResult = toFieldIssues(CONTRACT_SCHEMAS.BacktestJob.safeParse({ ...job, result: null }).error!);
    expect(noResult).toEqual([{ path: "result", message: "a SUCCESS job carries a result" }]);
    const failed = toFieldIssues(
      CONTRACT_SCHEMAS.BacktestJob.safeParse({ ...job, status: "FAILURE", result: null }).error!,
    );
    expect(failed).toEqual([{ path: "error_message", message: "a FAILURE job carries an error_message" }]);
  });

  it("rejects an unknown status naming the field", () => {
    const issues = toFieldIssues(CONTRACT_SCHEMAS.BacktestJob.safeParse({ ...job, status: "DONE" }).error!);
    expect(issues.map((i) => i.path)).toEqual(["status"]);
  });

  it("rejects more completed periods than planned", () => {
    const bad = setAt(job, ["progress", "completed_periods"], 4);
    expect(toFieldIssues(CONTRACT_SCHEMAS.BacktestJob.safeParse(bad).error!)).toEqual([
      { path: "progress.completed_periods", message: "completed_periods exceeds planned_periods" },
    ]);
  });

  it("rejects a non-finite figure in a case result", () => {
    const bad = setAt(job, ["result", "tax_managed", "turnover"], Number.POSITIVE_INFINITY);
    const issues = toFieldIssues(CONTRACT_SCHEMAS.BacktestJob.safeParse(bad).error!);
    expect(issues.map((i) => i.path)).toEqual(["result.tax_managed.turnover"]);
  });

  it("rejects negative realized-loss magnitudes", () => {
    const bad = setAt(job, ["result", "tax_managed", "realized_short_term_losses"], -1);
    expect(CONTRACT_SCHEMAS.BacktestJob.safeParse(bad).success).toBe(false);
  });
});

describe("theme shapes", () => {
  it("requires constituents ordered by weight descending and a matching count", () => {
    const snapshot = CONTRACT_EXAMPLES.ThemeConstituentSnapshot;
    const swapped = { ...snapshot, constituents: [...snapshot.constituents].reverse() };
    expect(toFieldIssues(CONTRACT_SCHEMAS.ThemeConstituentSnapshot.safeParse(swapped).error!)).toEqual([
      { path: "constituents[1].weight", message: "constituents must be ordered by weight descending" },
    ]);
    const miscounted = { ...snapshot, total_constituents: 3 };
    expect(
      toFieldIssues(CONTRACT_SCHEMAS.ThemeConstituentSnapshot.safeParse(miscounted).error!)[0]!.path,
    ).toBe("total_constituents");
  });

  it("accepts a portfolio-only backtest and rejects a benchmark without summary", () => {
    const { benchmark: _b, summary: _s, ...portfolioOnly } = CONTRACT_EXAMPLES.ThemeBacktestResult;
    expect(CONTRACT_SCHEMAS.ThemeBacktestResult.safeParse(portfolioOnly).success).toBe(true);
    const { summary: _s2, ...halfBenchmark } = CONTRACT_EXAMPLES.ThemeBacktestResult;
    expect(CONTRACT_SCHEMAS.ThemeBacktestResult.safeParse(halfBenchmark).success).toBe(false);
  });

  it("applies methodology defaults: filters [] and score market_cap", () => {
    const parsed = parseOrThrow(CONTRACT_SCHEMAS.ThemeMethodology, {
      name: "Equal-weight banks",
      universe: { expression: "industry == 401010" },
      selection: { mode: "all" },
      weighting: { scheme: "equal" },
      rules: { rebalancing_period: "ANNUALLY" },
    });
    expect(parsed.filters).toEqual([]);
    expect(parsed.score).toBe("market_cap");
  });

  it("does not apply defaults to a revision (absent fields keep the stored value)", () => {
    expect(parseOrThrow(CONTRACT_SCHEMAS.ThemeRevision, { name: "Renamed" })).toEqual({ name: "Renamed" });
    expect(CONTRACT_SCHEMAS.ThemeRevision.safeParse({}).success).toBe(false);
  });

  it.each([
    [{ mode: "all", value: 5 }, "selection.value"],
    [{ mode: "top_n", value: 2.5 }, "selection.value"],
    [{ mode: "top_n", value: 0 }, "selection.value"],
    [{ mode: "top_percent", value: 0 }, "selection.value"],
    [{ mode: "best" }, "selection.mode"],
  ])("rejects selection %j at %s", (selection, path) => {
    const body = { ...CONTRACT_EXAMPLES.ThemeMethodology, selection };
    const issues = toFieldIssues(CONTRACT_SCHEMAS.ThemeMethodology.safeParse(body).error!);
    expect(issues.map((i) => i.path)).toEqual([path]);
  });

  it.each([
    [{ scheme: "equal", max_weight: 0 }, "weighting.max_weight"],
    [{ scheme: "equal", max_weight: 1.01 }, "weighting.max_weight"],
    [{ scheme: "inverse_vol" }, "weighting.scheme"],
  ])("rejects weighting %j at %s", (weighting, path) => {
    const body = { ...CONTRACT_EXAMPLES.ThemeMethodology, weighting };
    expect(
      toFieldIssues(CONTRACT_SCHEMAS.ThemeMethodology.safeParse(body).error!).map((i) => i.path),
    ).toEqual([path]);
  });

  it("rejects a rebalancing period outside the four cadences, naming rules.rebalancing_period", () => {
    const body = { ...CONTRACT_EXAMPLES.ThemeMethodology, rules: { rebalancing_period: "WEEKLY" } };
    expect(
      toFieldIssues(CONTRACT_SCHEMAS.ThemeMethodology.safeParse(body).error!).map((i) => i.path),
    ).toEqual(["rules.rebalancing_period"]);
  });
});

describe("client, account and asset-class shapes", () => {
  it("names the nested path of a bad lot currency in a client update", () => {
    const bad = setAt(
      CONTRACT_EXAMPLES.ClientUpdate,
      ["holdings", "tax_lots", 0, "cost_basis_currency"],
      "CHF",
    );
    expect(toFieldIssues(CONTRACT_SCHEMAS.ClientUpdate.safeParse(bad).error!).map((i) => i.path)).toEqual([
      "holdings.tax_lots[0].cost_basis_currency",
    ]);
  });

  it("rejects status inside a customization_config (write shape without status)", () => {
    const bad = setAt(CONTRACT_EXAMPLES.ClientUpdate, ["customization_config", "status"], "draft");
    expect(toFieldIssues(CONTRACT_SCHEMAS.ClientUpdate.safeParse(bad).error!)).toEqual([
      { path: "customization_config.status", message: "unknown field; remove it or check its spelling" },
    ]);
  });

  it("rejects an asset class given two settings", () => {
    const setting = CONTRACT_EXAMPLES.ClientUpdate.asset_class_settings[0]!;
    const result = CONTRACT_SCHEMAS.ClientUpdate.safeParse({ asset_class_settings: [setting, setting] });
    expect(toFieldIssues(result.error!).map((i) => i.path)).toEqual([
      "asset_class_settings[1].asset_class_uuid",
    ]);
  });

  it("rejects an event contract side other than yes/no, naming it", () => {
    const bad = { ...CONTRACT_EXAMPLES.AssetClass, event_contract_side: "maybe" };
    expect(toFieldIssues(CONTRACT_SCHEMAS.AssetClass.safeParse(bad).error!).map((i) => i.path)).toEqual([
      "event_contract_side",
    ]);
  });

  it("requires a composite asset class to list children, and a simple one to name what it holds", () => {
    const composite = CONTRACT_SCHEMAS.AssetClassCreate.safeParse({ name: "Global", is_composite: true });
    expect(toFieldIssues(composite.error!).map((i) => i.path)).toEqual(["asset_allocations"]);
    const empty = CONTRACT_SCHEMAS.AssetClassCreate.safeParse({ name: "Nothing" });
    expect(toFieldIssues(empty.error!)[0]!.message).toMatch(/names what it invests in/);
    const children = CONTRACT_SCHEMAS.AssetClassCreate.safeParse({
      name: "Global",
      is_composite: true,
      asset_allocations: [
        { asset_class_uuid: "8e6f1d2c-4b3a-4f5e-8d7c-1a2b3c4d5e6f", target_allocation: "0.7" },
        { asset_class_uuid: "0f9e8d7c-6b5a-4e3d-9c2b-1a0f9e8d7c6b", target_allocation: "0.3" },
      ],
    });
    expect(children.success).toBe(true);
  });

  it("nests child allocations recursively in a read", () => {
    const leaf = CONTRACT_EXAMPLES.PortfolioConfigRead.asset_allocations[0]!;
    const parent = {
      ...leaf,
      is_composite: true,
      child_asset_allocations: [{ ...leaf, child_asset_allocations: [leaf] }],
    };
    expect(CONTRACT_SCHEMAS.AssetAllocationRead.safeParse(parent).success).toBe(true);
    const badGrandchild = setAt(
      parent,
      ["child_asset_allocations", 0, "child_asset_allocations", 0, "is_composite"],
      "no",
    );
    expect(
      toFieldIssues(CONTRACT_SCHEMAS.AssetAllocationRead.safeParse(badGrandchild).error!).map((i) => i.path),
    ).toEqual(["child_asset_allocations[0].child_asset_allocations[0].is_composite"]);
  });

  it("accepts null metadata but not a missing one in a client read", () => {
    const client = CONTRACT_EXAMPLES.Client;
    expect(CONTRACT_SCHEMAS.Client.safeParse({ ...client, metadata: null }).success).toBe(true);
    const { metadata: _m, ...withoutMetadata } = client;
    expect(toFieldIssues(CONTRACT_SCHEMAS.Client.safeParse(withoutMetadata).error!)).toEqual([
      { path: "metadata", message: "Required" },
    ]);
  });
});

describe("catalog shapes", () => {
  it("bounds the industry query: 1 to 200 characters, not blank", () => {
    const schema = CONTRACT_SCHEMAS.IndustrySearchRequest;
    expect(schema.safeParse({ query: "s" }).success).toBe(true);
    expect(schema.safeParse({ query: "s".repeat(200) }).success).toBe(true);
    expect(schema.safeParse({ query: "s".repeat(201) }).success).toBe(false);
    expect(schema.safeParse({ query: "" }).success).toBe(false);
    expect(schema.safeParse({ query: "   " }).success).toBe(false);
  });

  it("rejects an industry level outside L1..L4, naming matches[0].level", () => {
    const bad = setAt(CONTRACT_EXAMPLES.IndustrySearchResponse, ["matches", 0, "level"], "L5");
    expect(
      toFieldIssues(CONTRACT_SCHEMAS.IndustrySearchResponse.safeParse(bad).error!).map((i) => i.path),
    ).toEqual(["matches[0].level"]);
  });
});

describe("inferred types", () => {
  it("give configuration reads nullable decimals and defaulted fields", () => {
    expectTypeOf<PortfolioConfigRead["cash_buffer_usd"]>().toEqualTypeOf<string | null>();
    expectTypeOf<PortfolioConfigRead["risk_aversion"]>().toEqualTypeOf<string>();
    expectTypeOf<PortfolioConfigRead["risk_bound_max_iterations"]>().toEqualTypeOf<number>();
    expectTypeOf<PortfolioConfigRead["status"]>().toEqualTypeOf<string>();
    expectTypeOf<PortfolioConfigRead["optimization_mode"]>().toEqualTypeOf<
      "LONG_ONLY" | "LONG_SHORT" | "LONG_BIASED"
    >();
    expectTypeOf<PortfolioConfigRead["whole_share_assets"]>().toEqualTypeOf<string[] | null>();
    expectTypeOf<PortfolioConfigRead["substitution_pairs"]>().toEqualTypeOf<string[][]>();
    expectTypeOf<PortfolioConfigRead["capital_gains_reductions"]>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<PortfolioConfigRead["no_hold_tickers"]>().toEqualTypeOf<TickerReferenceRead[]>();
    expectTypeOf<PortfolioConfigRead["tax_preferences"]>().toEqualTypeOf<TaxPreferencesRead>();
    expectTypeOf<TaxPreferencesRead["tax_region"]>().toEqualTypeOf<string>();
    expectTypeOf<TaxPreferencesRead["wash_sale_threshold"]>().toEqualTypeOf<number | null>();
  });

  it("make every configuration write field optional, status limited to three values", () => {
    expectTypeOf<PortfolioConfigWrite["status"]>().toEqualTypeOf<
      "draft" | "deployed" | "archived" | undefined
    >();
    expectTypeOf<PortfolioConfigWrite["max_weight"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<PortfolioConfigWrite["no_hold_tickers"]>().toEqualTypeOf<
      TickerReferenceWrite[] | undefined
    >();
    expectTypeOf<PortfolioConfigWrite["tax_preferences"]>().toEqualTypeOf<TaxPreferencesWrite | undefined>();
    expectTypeOf<PortfolioConfigWrite["asset_allocations"]>().toEqualTypeOf<
      AssetAllocationWrite[] | undefined
    >();
    expectTypeOf<PortfolioConfigCreate["name"]>().toEqualTypeOf<string>();
    expectTypeOf<TickerReferenceWrite>().toHaveProperty("theme_asset_id").toEqualTypeOf<string>();
    expectTypeOf<TickerReferenceRead["ticker"]["market_cap"]>().toEqualTypeOf<number | null>();
  });

  it("tie the lot and FX currency enums to the core Currency type", () => {
    expectTypeOf<NonNullable<TaxLotWrite["cost_basis_currency"]>>().toEqualTypeOf<Currency>();
    expectTypeOf<FxCostBreakdown["currency"]>().toEqualTypeOf<Currency>();
    expectTypeOf<TaxLotRead["cost_basis_unit"]>().toEqualTypeOf<"per_share" | "total">();
    expectTypeOf<TaxLotWrite["cost_basis_unit"]>().toEqualTypeOf<"per_share" | "total" | undefined>();
  });

  it("describe proposals, orders and backtests", () => {
    expectTypeOf<ProposalRequest["optimized_weights"][number]>().toEqualTypeOf<{
      ticker: string;
      weight: string;
    }>();
    expectTypeOf<ProposalResponse["orders"]>().toEqualTypeOf<ProposalOrder[]>();
    expectTypeOf<ProposalOrder["type"]>().toEqualTypeOf<"qty" | "notional">();
    expectTypeOf<ProposalOrder["reason"]>().toEqualTypeOf<
      | "removed_from_target"
      | "added_to_target"
      | "weight_decreased"
      | "weight_increased"
      | ""
      | null
      | undefined
    >();
    expectTypeOf<BacktestJob["status"]>().toEqualTypeOf<"PENDING" | "RUNNING" | "SUCCESS" | "FAILURE">();
    expectTypeOf<BacktestJob["result"]>().toEqualTypeOf<Record<string, BacktestCaseResult> | null>();
    expectTypeOf<BacktestJob["params"]>().toEqualTypeOf<BacktestRequest>();
    expectTypeOf<BacktestRequest["ls_tlh_factor"]>().toEqualTypeOf<
      "quality" | "value" | "growth" | undefined
    >();
    expectTypeOf<BacktestCaseResult["tax_alpha_bps"]>().toEqualTypeOf<number | null>();
    expectTypeOf<BacktestCaseResult["costs"]>().toEqualTypeOf<{ transaction: number; fx: number }>();
  });

  it("nest accounts, allocations and asset classes", () => {
    expectTypeOf<Client["accounts"]>().toEqualTypeOf<Account[]>();
    expectTypeOf<Account["holdings"]>().toEqualTypeOf<HoldingsRead>();
    expectTypeOf<HoldingsRead["tax_lots"]>().toEqualTypeOf<TaxLotRead[]>();
    expectTypeOf<Account["customization_config"]>().toEqualTypeOf<PortfolioConfigRead | null>();
    expectTypeOf<Account["asset_class_settings"]>().toEqualTypeOf<AssetClassSettingRead[]>();
    expectTypeOf<AssetClassSettingRead["implementation_sleeve"]>().toEqualTypeOf<AssetClass | null>();
    expectTypeOf<AssetAllocationRead["child_asset_allocations"]>().toEqualTypeOf<AssetAllocationRead[]>();
    expectTypeOf<AssetAllocationRead["tilts"]>().toEqualTypeOf<TiltRead[]>();
    expectTypeOf<AssetClass["event_contract_side"]>().toEqualTypeOf<"yes" | "no" | null>();
    expectTypeOf<ClientUpdate["metadata"]>().toEqualTypeOf<z.core.util.JSONType | undefined>();
    expectTypeOf<Rule["priority"]>().toEqualTypeOf<number | undefined>();
  });

  it("describe themes, catalog and errors", () => {
    expectTypeOf<ThemeMethodology["filters"]>().toEqualTypeOf<string[]>();
    expectTypeOf<ThemeMethodologyInput["filters"]>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<ThemeMethodology["rules"]["rebalancing_period"]>().toEqualTypeOf<
      "MONTHLY" | "QUARTERLY" | "SEMI_ANNUALLY" | "ANNUALLY"
    >();
    expectTypeOf<Theme["methodology"]>().toEqualTypeOf<ThemeMethodology>();
    expectTypeOf<ThemeConstituentSnapshot["constituents"][number]["weight"]>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<ThemeBacktestResult["summary"]>>().toHaveProperty("risk_metrics");
    expectTypeOf<IndustrySearchResponse["matches"]>().toEqualTypeOf<IndustryMatch[]>();
    expectTypeOf<IndustryMatch["level"]>().toEqualTypeOf<"L1" | "L2" | "L3" | "L4">();
    expectTypeOf<UniversePreset["allowed_exchanges"]>().toEqualTypeOf<string[]>();
    expectTypeOf<ErrorEnvelope["error"]["details"]>().toEqualTypeOf<
      { path: string; message: string }[] | undefined
    >();
  });
});
