/**
 * @module service/ledger-ytd
 * Year-to-date taxes in the optimizer (docs/ledger.md, "Year-to-date taxes"): `tax_budget_usd` and
 * `tax_gain_target` are for the tax year, so the gains the account's ledger already realized in the year of the
 * optimization's as-of date (rows sold on or before it) are taken off before the optimizer sees them:
 *
 * - the tax of those gains = net short-term gain x short_term_rate + net long-term gain x long_term_rate (the
 *   optimizer's own model of a sale's tax: net per term, losses count negative); the optimizer's budget is
 *   `tax_budget_usd - that tax`, at least 0;
 * - the optimizer's gain target is `tax_gain_target - net realized gain`.
 *
 * The answer reports the year's realized total before the trade and after it (`year_to_date_realized`).
 */
import type { Decimal } from "decimal.js";
import type { YearToDateRealized } from "../contract/index.js";
import { yearOf } from "../core/dates.js";
import { realizedRows, yearTotals } from "../core/ledger/index.js";
import type { OptimizerConfig } from "../core/optimizer/index.js";
import type { LotwiseStore } from "../store/index.js";
import { entryFromRecord } from "../store/index.js";

export interface YearToDateTaxes {
  year: number;
  through: string;
  shortTermNet: Decimal;
  longTermNet: Decimal;
  net: Decimal;
  taxUsd: number;
  budget: number | null;
  budgetRemaining: number | null;
  gainTarget: number | null;
  gainTargetRemaining: number | null;
  /** The configuration the optimizer is given (the budget / target left). */
  config: OptimizerConfig;
  warning: string | null;
}

const usd = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** What the ledger realized this year before `asOf`, and the configuration with the budget and target left. */
export async function yearToDateTaxes(
  store: LotwiseStore,
  accountUuid: string,
  asOf: string,
  config: OptimizerConfig,
): Promise<YearToDateTaxes> {
  const ytd = await realizedYearToDate(store, accountUuid, asOf);
  const tax = config.tax;
  const taxUsd =
    ytd.shortTermNet.toNumber() * tax.shortTermRate + ytd.longTermNet.toNumber() * tax.longTermRate;
  const net = ytd.net.toNumber();
  const budget = tax.taxBudgetUsd;
  const target = tax.taxGainTarget;
  const budgetRemaining = budget === null ? null : Math.max(0, budget - taxUsd);
  const gainTargetRemaining = target === null ? null : target - net;
  const changed = (budget !== null || target !== null) && !ytd.net.isZero();
  let warning: string | null = null;
  if (changed && budget !== null)
    warning = `tax_budget_usd ${usd(budget)} less ${usd(taxUsd)} of tax on the ${usd(net)} realized in ${ytd.year} through ${asOf}: the optimizer's budget is ${usd(budgetRemaining!)}.`;
  else if (changed && target !== null)
    warning = `tax_gain_target ${usd(target)} less the ${usd(net)} realized in ${ytd.year} through ${asOf}: the optimizer aims for ${usd(gainTargetRemaining!)}.`;
  return {
    year: ytd.year,
    through: asOf,
    shortTermNet: ytd.shortTermNet,
    longTermNet: ytd.longTermNet,
    net: ytd.net,
    taxUsd,
    budget,
    budgetRemaining,
    gainTarget: target,
    gainTargetRemaining,
    config: changed
      ? {
          ...config,
          tax: {
            ...tax,
            ...(budget === null ? {} : { taxBudgetUsd: budgetRemaining }),
            ...(target === null ? {} : { taxGainTarget: gainTargetRemaining }),
          },
        }
      : config,
    warning,
  };
}

/** The wire extension: before and after the trade (`tradeNetUsd`: what the trade realizes, net). */
export function yearToDateWire(y: YearToDateTaxes, tradeNetUsd: number): YearToDateRealized {
  return {
    year: y.year,
    through: y.through,
    realized_before_usd: y.net.toFixed(),
    short_term_before_usd: y.shortTermNet.toFixed(),
    long_term_before_usd: y.longTermNet.toFixed(),
    tax_before_usd: y.taxUsd,
    realized_after_usd: y.net.toNumber() + tradeNetUsd,
    tax_budget_usd: y.budget,
    tax_budget_remaining_usd: y.budgetRemaining,
    tax_gain_target: y.gainTarget,
    tax_gain_target_remaining: y.gainTargetRemaining,
  };
}

/** The year-to-date realized totals of an account on `asOf` (its tax year up to and including that date). */
export async function realizedYearToDate(
  store: LotwiseStore,
  accountUuid: string,
  asOf: string,
): Promise<{ year: number; shortTermNet: Decimal; longTermNet: Decimal; net: Decimal }> {
  const year = yearOf(asOf);
  const records = await store.ledger.realized(
    { accountUuid },
    { from: `${asOf.slice(0, 4)}-01-01`, to: asOf },
  );
  const t = yearTotals(realizedRows(records.map(entryFromRecord)), year);
  return { year, shortTermNet: t.shortTerm.net, longTermNet: t.longTerm.net, net: t.net };
}
