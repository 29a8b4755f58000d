import { describe, expect, it } from "vitest";
import { WASH_SALE_GAIN_MARGIN } from "../core/backtest/policies/tax-aware-tracking.js";
import { buildDemo } from "../service/demo.js";
import { accountDrift } from "../service/drift.js";
import { createProposal, getAccount, getPortfolioConfig, harvestScan } from "../service/index.js";
import { openSqliteStore } from "../store/index.js";
import { basisResetText } from "./backtest-render.js";
import { renderProposal } from "./commands/proposal.js";
import { renderAccount, renderConfig, renderDrift, renderHarvest } from "./render.js";

/** Whole days from `a` to `b` (UTC calendar dates), computed independently of the tax engine. */
const days = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 864e5);

describe("account table", () => {
  it("numbers each lot and shows its term (ST/LT) and days held on the valuation date", async () => {
    const store = openSqliteStore(":memory:");
    try {
      const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
      const demo = await buildDemo(ctx, { securities: 60, years: 3 });
      const a = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
      const text = renderAccount(a);
      // The demo's recent lots are in a wash-sale window; none was sold at a loss, so no empty column for it.
      expect(a.wash_sale_lots.length).toBeGreaterThan(0);
      expect(a.wash_sale_lots.every((w) => !w.tax_lot.last_sold_for_loss_date)).toBe(true);
      const washHeader = text
        .split("\n")
        .find((l) => l.includes("Trade date") && l.includes("Quantity") && !l.includes("Days held"))!;
      expect(washHeader).toContain("Symbol");
      expect(washHeader).not.toContain("Sold for loss");
      const asOf = a.as_of_date!;
      expect(text).toContain(`Tax lots (term and days held on ${asOf}; LT = held more than one year)`);
      const header = text.split("\n").find((l) => l.includes("Trade date") && l.includes("Days held"))!;
      const cells = (line: string) => line.split("│").map((c) => c.trim());
      const names = cells(header);
      const rows = text.split("\n").filter((l) => /^│\s+\d+\s+│/.test(l));
      expect(rows.length).toBe(a.holdings.tax_lots.length);
      let long = 0;
      let short = 0;
      a.holdings.tax_lots.forEach((lot, i) => {
        const c = cells(rows[i]!);
        const at = (name: string) => c[names.indexOf(name)]!;
        expect(at("#")).toBe(String(i + 1));
        expect(at("Trade date")).toBe(lot.trade_date);
        const held = days(lot.trade_date, asOf);
        expect(at("Days held")).toBe(String(held));
        // More than one year: at least 366 days, or 365 when the year held has no February 29 beyond the start.
        const anniversary = `${Number(lot.trade_date.slice(0, 4)) + 1}${lot.trade_date.slice(4)}`;
        const isLong = asOf > anniversary;
        expect(at("Term")).toBe(isLong ? "LT" : "ST");
        if (isLong) long++;
        else short++;
      });
      // The demo holds both kinds, as its description says.
      expect(long).toBeGreaterThan(0);
      expect(short).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

describe("proposal table", () => {
  it("says which book an order trades (not 'Category: long', which reads as long-term) and labels the cash buffers by currency", async () => {
    const store = openSqliteStore(":memory:");
    try {
      const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
      const demo = await buildDemo(ctx, { securities: 60, years: 3 });
      const a = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
      const [first, second] = a.positions;
      const p = await createProposal(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid, {
        optimized_weights: [
          { ticker: first!.theme_asset_id, weight: "0.5" },
          { ticker: second!.theme_asset_id, weight: "0.5" },
        ],
      });
      const text = renderProposal(p);
      const header = text.split("\n").find((l) => l.includes("Side") && l.includes("Reason"))!;
      expect(header).toContain("Book");
      expect(header).not.toContain("Category");
      expect(p.orders.every((o) => o.order_category === "long")).toBe(true);
      expect(text.split("long position").length - 1).toBe(p.orders.length);
      // Each amount is labelled with its currency once, as the other rows of the summary are.
      expect(text).toMatch(/│ Cash buffer \(USD\) +│/);
      expect(text).toMatch(/│ Cash buffer \(CAD\) +│/);
      expect(text).not.toContain("Cash buffer USD");
      expect(text).not.toContain("CAD (CAD)");
    } finally {
      await store.close();
    }
  });
});

describe("configuration table", () => {
  it("marks a JSON value it cuts with … and says --json prints it whole", async () => {
    const store = openSqliteStore(":memory:");
    try {
      const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
      const demo = await buildDemo(ctx, { securities: 60, years: 3 });
      const c = await getPortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid);
      expect(JSON.stringify(c.tax_preferences).length).toBeGreaterThan(120);
      const text = renderConfig(c);
      const row = text.split("\n").find((l) => l.startsWith("│ tax_preferences "))!;
      const value = row.split("│")[2]!.trim();
      expect(value.endsWith("…")).toBe(true);
      expect(JSON.stringify(c.tax_preferences).startsWith(value.slice(0, -1))).toBe(true);
      expect(text.endsWith("Values ending in … are cut; --json prints the whole configuration.")).toBe(true);
      // A value short enough is shown whole, without the mark.
      expect(text).toMatch(/│ no_hold_tickers +│ \[\] +│/);
    } finally {
      await store.close();
    }
  });
});

describe("harvest table", () => {
  it("says in words why a lot is not harvestable, with the wash-sale window's end", async () => {
    const store = openSqliteStore(":memory:");
    try {
      const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
      const demo = await buildDemo(ctx, { securities: 60, years: 3 });
      const h = await harvestScan(ctx, demo.organization_uuid, demo.account_uuid);
      const washed = h.lots.find((l) => l.reasons.includes("wash_sale_account"));
      expect(washed, "the demo holds a loss lot bought back within 30 days").toBeDefined();
      const text = renderHarvest(h, h.lots.length);
      expect(text).toMatch(
        new RegExp(`│ no: [^│]*wash sale in this account[^│]*\\(until ${washed!.wash_sale_window_ends}\\)`),
      );
      expect(text).not.toContain("(account)");
    } finally {
      await store.close();
    }
  });
});

describe("basis-reset band in words", () => {
  it("states the band from the wash-sale margin to the job's upper gain, off at 0, unknown for old jobs", () => {
    expect(basisResetText(0.1)).toBe(
      "long-term lots with a gain of 5% to 10.0% of value sold and bought back",
    );
    expect(basisResetText(0.25)).toContain(`${(WASH_SALE_GAIN_MARGIN * 100).toFixed(0)}% to 25.0%`);
    expect(basisResetText(0)).toBe("off");
    expect(basisResetText(undefined)).toBe("not recorded");
  });
});

describe("drift report", () => {
  it("lists every threshold passed under the status, one line per reason", async () => {
    const store = openSqliteStore(":memory:");
    try {
      const ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
      const demo = await buildDemo(ctx, { securities: 60, years: 3 });
      const d = await accountDrift(ctx, demo.organization_uuid, demo.account_uuid);
      expect(d.reasons.length).toBeGreaterThan(0);
      const text = renderDrift(d);
      const lines = text.split("\n");
      const at = lines.indexOf(`Why ${d.status.toUpperCase()} (thresholds passed):`);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(lines.slice(at + 1, at + 1 + d.reasons.length)).toEqual(d.reasons.map((r) => `  - ${r}`));
    } finally {
      await store.close();
    }
  }, 60_000);
});
