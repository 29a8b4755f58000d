/**
 * @module cli/render
 * Human renderings of the wire shapes (tables). Machine output is the wire shape itself (`--json`).
 */
import type {
  Account,
  AccountDrift,
  AccountEvaluation,
  AssetClass,
  Client,
  HarvestScan,
  HoldingsAsOf,
  LotImportResult,
  PortfolioConfigRead,
} from "../contract/index.js";
import { holdingDays, holdingTerm } from "../core/tax/holding-period.js";
import { paintStatus, warningLine } from "./colour.js";
import { renderKeyValues, renderTable } from "./output.js";

/** `1234567.5` -> `1,234,567.50`; null/empty -> "". */
export function money(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === "") return "";
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n)) return String(v);
  return n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** A fraction as a percent: `0.1234` -> `12.34%`. */
export function percent(v: string | number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || v === "") return "";
  return `${(Number(v) * 100).toFixed(digits)}%`;
}

/** A quantity without trailing zeros, grouped: `1564` -> `1,564`. */
export function quantity(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === "") return "";
  const n = Number(v);
  return n.toLocaleString("en-US", { maximumFractionDigits: 6 });
}

/** An account's holdings on a past date (`lotwise accounts holdings --as-of`): cash, long lots, short lots, what was undone. */
export function renderHoldingsAsOf(h: HoldingsAsOf): string {
  const u = h.undone;
  const summary = renderKeyValues(
    [
      ["Account", h.account_uuid],
      ["As of", h.as_of],
      ["Cash (USD)", money(h.cash_value_usd)],
      ["Long lots", h.tax_lots.length],
      ["Short lots", h.short_lots.length],
      [
        "Undone",
        `${u.executions.length} execution(s), ${u.corporate_actions.length} corporate action(s), ${u.market_splits.length} market split(s); ${u.lots_dropped.length} lot(s) bought later left out`,
      ],
    ],
    "Holdings",
  );
  const parts = [summary];
  // Term on the date from the holding period's start (a wash sale carries the replaced lot's).
  parts.push(
    h.tax_lots.length === 0
      ? "No long lots."
      : renderTable(
          h.tax_lots.map((l, i) => ({ ...l, n: i + 1 })),
          [
            { header: "#", value: (l) => l.n, align: "right" },
            { header: "Listing", value: (l) => l.theme_asset_id },
            { header: "Trade date", value: (l) => l.trade_date },
            {
              header: "Term",
              value: (l) => (holdingTerm(l.holding_period_start, h.as_of) === "long_term" ? "LT" : "ST"),
            },
            {
              header: "Days held",
              value: (l) => holdingDays(l.holding_period_start, h.as_of),
              align: "right",
            },
            { header: "Quantity", value: (l) => quantity(l.quantity), align: "right" },
            {
              header: "Cost basis",
              value: (l) => `${money(l.total_cost_basis)} ${l.cost_basis_currency}`,
              align: "right",
            },
            { header: "Lot", value: (l) => l.lot_uuid },
          ],
          `Long lots on ${h.as_of} (LT = held more than one year)`,
        ),
  );
  if (h.short_lots.length > 0)
    parts.push(
      renderTable(
        h.short_lots,
        [
          { header: "Listing", value: (s) => s.theme_asset_id },
          { header: "Opened", value: (s) => s.open_date },
          { header: "Owed", value: (s) => quantity(s.quantity), align: "right" },
          { header: "Proceeds", value: (s) => `${money(s.proceeds)} ${s.currency}`, align: "right" },
          { header: "Lot", value: (s) => s.lot_uuid },
        ],
        "Short lots (gains on covering are short-term)",
      ),
    );
  for (const w of h.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

/** Account summary, positions, lots and wash-sale lots. */
export function renderAccount(a: Account, clientUuid?: string): string {
  const cash = Number(a.holdings.cash_value_usd);
  const summary = renderKeyValues(
    [
      ["Account", `${a.name ?? "(unnamed)"}  ${a.uuid}`],
      ...(clientUuid ? ([["Client", clientUuid]] as [string, string][]) : []),
      ["As of", a.as_of_date ?? "no prices"],
      ["Positions", a.positions.length],
      ["Tax lots", a.holdings.tax_lots.length],
      ["Cash (USD)", money(cash)],
      ["NAV / AUM (USD)", money(a.aum)],
      ["Net worth (USD)", money(a.net_worth)],
      ["Unrealized short-term (USD)", money(a.unrealized_short_term_gain_usd)],
      ["Unrealized long-term (USD)", money(a.unrealized_long_term_gain_usd)],
      [
        "Holdings risk (annualized)",
        a.holdings_risk_annualized_percentage
          ? `${Number(a.holdings_risk_annualized_percentage).toFixed(2)}%`
          : "n/a",
      ],
      ["Portfolio configuration", a.portfolio_config_uuid ?? "none"],
    ],
    "Account",
  );
  const positions = renderTable(
    a.positions,
    [
      { header: "Symbol", value: (p) => p.symbol ?? p.theme_asset_id },
      { header: "Listing", value: (p) => p.theme_asset_id },
      { header: "Ccy", value: (p) => p.currency },
      { header: "Quantity", value: (p) => quantity(p.quantity), align: "right" },
      { header: "Lots", value: (p) => p.lots, align: "right" },
      { header: "Price", value: (p) => money(p.price), align: "right" },
      { header: "Value (USD)", value: (p) => money(p.market_value_usd), align: "right" },
      { header: "Cost (USD)", value: (p) => money(p.cost_basis_usd), align: "right" },
      { header: "Unrl. ST", value: (p) => money(p.unrealized_short_term_gain_usd), align: "right" },
      { header: "Unrl. LT", value: (p) => money(p.unrealized_long_term_gain_usd), align: "right" },
      { header: "Weight", value: (p) => percent(p.weight), align: "right" },
    ],
    "Positions",
  );
  const asOf = a.as_of_date;
  // Holding period on the valuation date: short-term (ST) until more than one year has passed (IRS rule).
  const held = (trade: string) => (asOf && trade <= asOf ? holdingDays(trade, asOf) : undefined);
  const lots = renderTable(
    a.holdings.tax_lots.map((l, i) => ({ ...l, n: i + 1 })),
    [
      { header: "#", value: (l) => l.n, align: "right" },
      { header: "Symbol", value: (l) => l.ticker_symbol ?? l.theme_asset_id },
      { header: "Trade date", value: (l) => l.trade_date },
      {
        header: "Term",
        value: (l) =>
          asOf && l.trade_date <= asOf ? (holdingTerm(l.trade_date, asOf) === "long_term" ? "LT" : "ST") : "",
      },
      { header: "Days held", value: (l) => held(l.trade_date), align: "right" },
      { header: "Quantity", value: (l) => quantity(l.quantity), align: "right" },
      {
        header: "Cost/share",
        value: (l) => `${money(l.cost_basis_per_share)} ${l.cost_basis_currency}`,
        align: "right",
      },
      { header: "Cost (USD)", value: (l) => money(l.total_cost_basis_usd), align: "right" },
      { header: "Value (USD)", value: (l) => money(l.current_value), align: "right" },
      {
        header: "Gain (USD)",
        value: (l) =>
          l.current_value === null ? "" : money(Number(l.current_value) - Number(l.total_cost_basis_usd)),
        align: "right",
      },
    ],
    `Tax lots${asOf ? ` (term and days held on ${asOf}; LT = held more than one year)` : ""}`,
  );
  const parts = [summary, positions, lots];
  const wash = [...a.wash_sale_lots, ...a.household_wash_sale_lots];
  if (wash.length > 0)
    parts.push(
      renderTable(
        wash,
        [
          { header: "Account", value: (w) => w.account_name ?? w.account_uuid },
          { header: "Symbol", value: (w) => w.tax_lot.ticker_symbol ?? w.tax_lot.theme_asset_id },
          { header: "Trade date", value: (w) => w.tax_lot.trade_date },
          // Only when some lot was partly sold at a loss: an always-empty column says nothing.
          ...(wash.some((w) => w.tax_lot.last_sold_for_loss_date)
            ? [
                {
                  header: "Sold for loss",
                  value: (w: (typeof wash)[number]) => w.tax_lot.last_sold_for_loss_date ?? "",
                },
              ]
            : []),
          { header: "Quantity", value: (w) => quantity(w.tax_lot.quantity), align: "right" },
        ],
        "Lots in a wash-sale window (a loss sale of these assets would be disallowed, or a purchase would wash a loss)",
      ),
    );
  for (const w of a.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

export function renderClients(clients: readonly Client[]): string {
  return renderTable(clients, [
    { header: "Client", value: (c) => c.uuid },
    { header: "External id", value: (c) => c.external_id },
    { header: "Accounts", value: (c) => c.accounts.length, align: "right" },
    {
      header: "AUM (USD)",
      value: (c) => money(c.accounts.reduce((s, a) => s + Number(a.aum), 0)),
      align: "right",
    },
    { header: "Created", value: (c) => c.created.slice(0, 10) },
  ]);
}

export function renderClient(c: Client): string {
  const head = renderKeyValues(
    [
      ["Client", c.uuid],
      ["External id", c.external_id],
      ["Created", c.created],
      ["Accounts", c.accounts.length],
    ],
    "Client",
  );
  const accounts = renderTable(c.accounts, [
    { header: "Account", value: (a) => a.uuid },
    { header: "Name", value: (a) => a.name },
    { header: "Lots", value: (a) => a.holdings.tax_lots.length, align: "right" },
    { header: "Cash (USD)", value: (a) => money(a.holdings.cash_value_usd), align: "right" },
    { header: "AUM (USD)", value: (a) => money(a.aum), align: "right" },
    { header: "Configuration", value: (a) => a.portfolio_config_uuid ?? "" },
  ]);
  return `${head}\n\n${accounts}`;
}

export function renderConfigs(configs: readonly PortfolioConfigRead[]): string {
  return renderTable(configs, [
    { header: "Configuration", value: (c) => c.uuid },
    { header: "Name", value: (c) => c.name },
    { header: "Status", value: (c) => c.status },
    { header: "Mode", value: (c) => c.optimization_mode },
    { header: "Risk model", value: (c) => c.risk_model_name },
    { header: "Max weight", value: (c) => c.max_weight ?? "", align: "right" },
    { header: "Tax gamma", value: (c) => c.tax_preferences.tax_gamma ?? "", align: "right" },
  ]);
}

/** Longest JSON value `renderConfig` shows in its table; a longer one is cut and ends in "…". */
const CONFIG_VALUE_MAX = 120;

export function renderConfig(c: PortfolioConfigRead): string {
  const pairs: [string, string | number | null][] = [];
  let cut = false;
  for (const [k, v] of Object.entries(c)) {
    if (v === null || typeof v !== "object") {
      pairs.push([k, v === null ? "" : String(v)]);
      continue;
    }
    const text = Array.isArray(v) && v.length === 0 ? "[]" : JSON.stringify(v);
    if (text.length > CONFIG_VALUE_MAX) cut = true;
    pairs.push([k, text.length > CONFIG_VALUE_MAX ? `${text.slice(0, CONFIG_VALUE_MAX - 1)}…` : text]);
  }
  const table = renderKeyValues(pairs, `Portfolio configuration ${c.name}`);
  return cut ? `${table}\nValues ending in … are cut; --json prints the whole configuration.` : table;
}

export function renderAssetClasses(list: readonly AssetClass[]): string {
  return renderTable(list, [
    { header: "Asset class", value: (a) => a.uuid },
    { header: "Name", value: (a) => a.name },
    {
      header: "Benchmark",
      value: (a) => a.benchmark_index_identifier ?? a.single_security_theme_asset_id ?? a.theme_name ?? "",
    },
    { header: "Composite", value: (a) => (a.is_composite ? "yes" : "no") },
    { header: "Archived", value: (a) => a.archived_at ?? "" },
  ]);
}

export function renderAssetClass(a: AssetClass): string {
  const head = renderKeyValues(
    [
      ["Asset class", a.uuid],
      ["Name", a.name],
      ["Description", a.description],
      [
        "Benchmark index",
        a.benchmark_index_identifier
          ? `${a.benchmark_index_identifier} (${a.benchmark_index_name ?? ""})`
          : "",
      ],
      [
        "Direct indexing supported",
        a.benchmark_direct_indexing_supported === null ? "" : String(a.benchmark_direct_indexing_supported),
      ],
      ["Single security", a.single_security_theme_asset_id],
      ["Theme", a.theme_name],
      ["Composite", a.is_composite ? "yes" : "no"],
      ["Archived", a.archived_at],
    ],
    "Asset class",
  );
  if (a.asset_allocations.length === 0) return head;
  const children = renderTable(a.asset_allocations, [
    { header: "Child", value: (c) => c.asset_class_name },
    { header: "Target", value: (c) => percent(c.target_allocation), align: "right" },
    { header: "Direct indexing", value: (c) => (c.direct_indexing_enabled ? "yes" : "no") },
    { header: "Archived", value: (c) => c.archived_at ?? "" },
  ]);
  return `${head}\n\n${children}`;
}

/** An account's drift: summary with the status and why, then the largest drifts (`top` rows). */
export function renderDrift(d: AccountDrift, top = 20): string {
  const threshold = (v: string | null) => (v === null ? "not set" : percent(v));
  const summary = renderKeyValues(
    [
      ["Account", d.account_uuid],
      ["As of", d.as_of_date],
      ["Target", `${d.target}${d.target_weights_date ? ` (weights of ${d.target_weights_date})` : ""}`],
      ["NAV (USD)", money(d.nav_usd)],
      ["Total drift", percent(d.total_drift)],
      ["Largest asset drift", percent(d.max_asset_drift)],
      ["Cash: now / target", `${percent(d.cash.current_weight)} / ${percent(d.cash.target_weight)}`],
      [
        "Thresholds: warning / breach / asset",
        `${threshold(d.thresholds.drift_warning_threshold)} / ${threshold(d.thresholds.drift_breach_threshold)} / ${threshold(d.thresholds.asset_drift_breach_threshold)}`,
      ],
      ["Status", paintStatus(d.status.toUpperCase())],
    ],
    "Drift from target",
  );
  const parts = [summary];
  if (d.reasons.length > 0)
    // One sentence per threshold passed (the warning one too when the status is a breach).
    parts.push(
      `Why ${paintStatus(d.status.toUpperCase())} (thresholds passed):\n${d.reasons.map((r) => `  - ${r}`).join("\n")}`,
    );
  const shown = d.assets.slice(0, top);
  if (shown.length > 0) {
    const rest = d.assets.length - shown.length;
    parts.push(
      renderTable(
        shown,
        [
          { header: "Symbol", value: (a) => a.ticker_symbol ?? a.theme_asset_id },
          { header: "Now", value: (a) => percent(a.current_weight), align: "right" },
          { header: "Target", value: (a) => percent(a.target_weight), align: "right" },
          { header: "Drift", value: (a) => percent(a.drift), align: "right" },
          { header: "Breach", value: (a) => (a.breach ? "yes" : "") },
        ],
        `Largest drifts (${shown.length} of ${d.assets.length} assets${rest > 0 ? `; --top ${d.assets.length} or --json for all` : ""})`,
      ),
    );
  }
  for (const w of d.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

/** An evaluation of an account's rules: the facts, then the rules that fired (highest priority first) and the others. */
export function renderEvaluation(e: AccountEvaluation): string {
  const f = e.facts;
  const orNull = (v: string | null, show: (v: string) => string) => (v === null ? "n/a" : show(v));
  const summary = renderKeyValues(
    [
      ["Account", e.account_uuid],
      ["As of", e.as_of_date],
      ["NAV (USD)", money(f.nav)],
      ["Cash (USD)", `${money(f.cash_usd)} (${orNull(f.cash_weight, percent)})`],
      ["Positions", String(f.positions)],
      [
        "Total / largest asset drift",
        `${orNull(f.total_drift, percent)} / ${orNull(f.max_asset_drift, percent)}`,
      ],
      ["Drift status", f.drift_status === null ? "n/a" : paintStatus(f.drift_status.toUpperCase())],
      [
        "Harvestable loss / tax value (USD)",
        `${money(f.harvestable_loss_usd)} / ${money(f.harvest_value_usd)}`,
      ],
      ["Rules evaluated / fired", `${e.evaluated} / ${e.fired.length}`],
    ],
    "Evaluation rules",
  );
  const value = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  const table = (rows: AccountEvaluation["fired"], title: string) =>
    renderTable(
      rows,
      [
        { header: "Rule", value: (r) => `evaluation_rules[${r.index}].rules[${r.rule_index}]` },
        { header: "Value", value: (r) => value(r.value) },
        { header: "Priority", value: (r) => r.priority, align: "right" },
        { header: "Why", value: (r) => r.reason },
      ],
      title,
    );
  const parts = [summary];
  parts.push(e.fired.length > 0 ? table(e.fired, "Fired (highest priority first)") : "No rule fired.");
  if (e.not_fired.length > 0) parts.push(table(e.not_fired, "Not fired"));
  for (const w of e.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

/** Assets listed by {@link renderLotImport} before it sums up the rest. */
const LOT_IMPORT_TICKERS_SHOWN = 20;

/**
 * A lots import (or dry run) for the terminal: what happened, the first lots of the file and the totals per asset,
 * at most a screenful however large the file (`--json` has every lot). Linear in the size of the summary.
 */
export function renderLotImport(r: LotImportResult, file: string): string {
  const skipped = `${r.skipped_count} summary/blank row(s) skipped`;
  const head = r.dry_run
    ? `Dry run: ${r.lots_in_file} lot(s) would be ${r.mode === "append" ? "added" : "set"} on account ${r.account_uuid}${r.mode !== "append" && r.lots_before > 0 ? `, replacing its ${r.lots_before} lot(s)` : ""} (${skipped}); it would hold ${r.lots_after} lot(s).`
    : `Imported ${r.lots_in_file} lot(s) from ${file} into account ${r.account_uuid} (${r.mode}; ${skipped}): ${r.lots_before} lot(s) before, ${r.lots_after} now.`;
  const lines = [head, ""];
  lines.push(
    renderTable(
      r.preview,
      [
        { header: "Asset", value: (l) => l.theme_asset_id },
        { header: "Trade date", value: (l) => l.trade_date },
        { header: "Quantity", value: (l) => l.quantity, align: "right" },
        { header: "Cost basis", value: (l) => `${l.cost_basis} (${l.cost_basis_unit})`, align: "right" },
        { header: "Ccy", value: (l) => l.cost_basis_currency ?? "USD" },
      ],
      r.lots_in_file > r.preview.length
        ? `First ${r.preview.length} of ${r.lots_in_file} lots (--json lists them all)`
        : "Lots",
    ),
  );
  const shown = r.by_ticker.slice(0, LOT_IMPORT_TICKERS_SHOWN);
  lines.push(
    "",
    renderTable(
      shown,
      [
        { header: "Asset", value: (t) => t.theme_asset_id },
        { header: "Lots", value: (t) => t.lots, align: "right" },
        { header: "Quantity", value: (t) => t.quantity, align: "right" },
        { header: "Cost basis (USD)", value: (t) => money(t.total_cost_basis_usd), align: "right" },
      ],
      r.by_ticker.length > shown.length
        ? `Totals per asset (first ${shown.length} of ${r.by_ticker.length} assets)`
        : "Totals per asset",
    ),
  );
  if (!r.dry_run) lines.push("", `Positions and gains: lotwise accounts show ${r.account_uuid}`);
  return lines.join("\n");
}

const REASON_TEXT: Record<HarvestScan["lots"][number]["reasons"][number], string> = {
  below_threshold: "below threshold",
  wash_sale_account: "wash sale in this account",
  wash_sale_household: "wash sale in another account of the client",
  no_trade: "no-trade",
};

/**
 * A harvest scan: summary with the thresholds, rates and totals, the lots at a loss (`top` rows, harvestable
 * first; the rest summarized), then the replacements of each harvestable asset.
 */
export function renderHarvest(h: HarvestScan, top = 20): string {
  const t = h.totals;
  const summary = renderKeyValues(
    [
      ["Account", h.account_uuid],
      ["As of", h.as_of_date],
      [
        "Threshold",
        `loss >= ${money(h.thresholds.min_loss_usd)} USD and >= ${percent(h.thresholds.min_loss_fraction)} of basis`,
      ],
      ["Wash-sale window (days)", h.thresholds.wash_sale_threshold],
      [
        "Rates: short / long term",
        `${percent(h.rates.short_term_rate)} / ${percent(h.rates.long_term_rate)}`,
      ],
      ["Lots at a loss / harvestable", `${t.loss_lots} / ${t.harvestable_lots}`],
      [
        "Harvestable loss (USD)",
        `${money(t.harvestable_loss_usd)} (short ${money(t.harvestable_short_term_loss_usd)}, long ${money(t.harvestable_long_term_loss_usd)})`,
      ],
      ["Estimated tax value (USD)", money(t.estimated_tax_value_usd)],
    ],
    "Harvest scan",
  );
  const parts = [summary];
  const shown = h.lots.slice(0, top);
  if (shown.length > 0) {
    const rest = h.lots.slice(shown.length);
    parts.push(
      renderTable(
        shown,
        [
          { header: "Symbol", value: (l) => l.ticker_symbol ?? l.theme_asset_id },
          { header: "Bought", value: (l) => l.trade_date },
          { header: "Qty", value: (l) => quantity(l.quantity), align: "right" },
          { header: "Basis", value: (l) => money(l.cost_basis_usd), align: "right" },
          { header: "Value", value: (l) => money(l.value_usd), align: "right" },
          { header: "Loss", value: (l) => money(l.loss_usd), align: "right" },
          { header: "Loss %", value: (l) => percent(l.loss_fraction), align: "right" },
          { header: "Term", value: (l) => (l.term === "long_term" ? "LT" : "ST") },
          { header: "Tax value", value: (l) => money(l.estimated_tax_value_usd), align: "right" },
          {
            header: "Harvest",
            value: (l) =>
              l.harvestable
                ? "yes"
                : `no: ${l.reasons.map((r) => REASON_TEXT[r]).join(", ")}${l.wash_sale_window_ends ? ` (until ${l.wash_sale_window_ends})` : ""}`,
          },
        ],
        `Lots at a loss (${shown.length} of ${h.lots.length}, harvestable first${rest.length > 0 ? `; --top ${h.lots.length} or --json for all` : ""})`,
      ),
    );
    if (rest.length > 0) {
      const restHarvestable = rest.filter((l) => l.harvestable);
      const restLoss = restHarvestable.reduce((s, l) => s + Number(l.loss_usd), 0);
      parts.push(
        `... and ${rest.length} more lot${rest.length === 1 ? "" : "s"} at a loss (${restHarvestable.length} harvestable, ${money(restLoss)} USD of loss)`,
      );
    }
  } else parts.push("No lot is at a loss on this date.");
  const subs = h.substitutes.filter((s) => s.candidates.length > 0);
  if (h.substitutes.length > 0)
    parts.push(
      renderTable(
        h.substitutes,
        [
          { header: "Harvest", value: (s) => s.ticker_symbol ?? s.theme_asset_id },
          {
            header: "Replace with (correlation, shared level)",
            value: (s) =>
              s.candidates.length === 0
                ? "none qualifies"
                : s.candidates
                    .map(
                      (c) =>
                        `${c.ticker_symbol ?? c.theme_asset_id} (${Number(c.correlation).toFixed(2)}, ${c.shared_classification.replace("_", " ")})`,
                    )
                    .join("; "),
          },
        ],
        `Substitutes (${subs.length} of ${h.substitutes.length} harvestable assets have one)`,
      ),
    );
  for (const w of h.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}
