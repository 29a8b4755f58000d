/**
 * @module core/backtest/account-book
 * The simulated account of one backtest case: USD cash, long tax lots, short lots, every realized gain, the
 * open tax year and the loss carryforward. All money and quantities are decimal (the tax engine's
 * `TaxDecimal`, 64 significant digits); prices and FX enter as floats and are converted exactly (a float's
 * shortest decimal form) at this boundary. Every sale goes through the tax engine (`applySale`: lot
 * selection, realized gains, wash sales looking back), every purchase creates a lot through `applyPurchase`
 * (wash sales looking forward), splits go through `applySplit`. Hence, at every close,
 *
 *   NAV = cash + sum_i (long shares_i - short shares_i) x close_i / fx_i
 *
 * holds exactly (up to the 64-digit rounding of the division by a non-USD rate).
 */
import type { Decimal } from "decimal.js";
import { daysBetween } from "../dates.js";
import { DataError, TaxLotError } from "../errors.js";
import { spinOffLot } from "../ledger/spin-off.js";
import {
  applyPurchase,
  applySale,
  applySplit,
  isLossSale,
  type LotSelectionPolicy,
  type RealizedGain,
  type SpecificLotRequest,
  settleTaxYear,
  TaxDecimal,
  type TaxLot,
  type TaxRulesOptions,
  taxCost,
  unrealizedGain,
} from "../tax/index.js";
import type { TradingCosts } from "./costs.js";
import { type BacktestMarket, spinOffChildValue } from "./market-data.js";
import type { BacktestShortLot, PolicyOrder, PortfolioSnapshot } from "./policy.js";

const ZERO = new TaxDecimal(0);
const BPS = new TaxDecimal(10_000);
/** Shares are traded in millionths (broker fractional-share precision; docs/proposals.md). */
export const QUANTITY_DECIMALS = 6;

/**
 * What happens to a net capital loss of a year (the backtest parameter `loss_usage`):
 * - `"account_only"`: the account stands alone; Schedule D netting, $3,000 against ordinary income, the rest
 *   carried forward (settleTaxYear);
 * - `"outside_gains"`: the investor has other gains of each character to absorb it, so every recognized
 *   dollar is taxed (or saves tax) at its rate in the year it is booked: tax = ST x st_rate + LT x lt_rate,
 *   the saving credited to cash at the year end and reinvested (the assumption of Chaudhuri, Burnham & Lo 2020
 *   and of most tax-alpha studies and advisors' proposals).
 */
export type LossUsage = "account_only" | "outside_gains";
/** Values of {@link LossUsage}. */
export const LOSS_USAGES = ["account_only", "outside_gains"] as const;

/** Tax settings of a backtest: flat marginal rates (fractions) and the tax-lot rules. */
export interface BacktestTaxSettings {
  /** @default 0.37 */
  readonly shortTermRate: number;
  /** @default 0.2 */
  readonly longTermRate: number;
  /** Rate saved by the capital-loss deduction against ordinary income. @default shortTermRate */
  readonly ordinaryIncomeRate: number;
  /** @default 3000 (IRC §1211(b)) */
  readonly lossDeductionLimit: number;
  /** @default "account_only" */
  readonly lossUsage: LossUsage;
  /** Wash-sale window, long-term threshold, holding-period convention (docs/tax.md). */
  readonly rules: TaxRulesOptions;
}

/** The realization of a short-lot slice by a cover (always short-term: IRC §1233(a)). */
export interface CoverRecord {
  readonly lotId: string;
  readonly themeAssetId: string;
  readonly quantity: Decimal;
  readonly openDate: string;
  readonly coverDate: string;
  /** Short-sale proceeds of the slice, USD at the short-sale FX. */
  readonly proceedsUsd: Decimal;
  /** Cost of the covering shares (costs included), USD at the cover FX. */
  readonly costUsd: Decimal;
  /** proceedsUsd - costUsd. */
  readonly gainUsd: Decimal;
  readonly harvest: boolean;
}

/** A spin-off applied to the account (docs/backtests.md, "Spin-offs"). */
export interface SpinOffRecord {
  readonly actionId: string;
  readonly date: string;
  readonly parentAssetId: string;
  readonly childAssetId: string;
  /** Parent shares held at the open (long lots). */
  readonly parentQuantity: Decimal;
  /** Basis moved from the parent's lots to the child's (USD at the lots' fx rates). */
  readonly basisToChildUsd: Decimal;
  /** Child shares distributed. */
  readonly childQuantity: Decimal;
  /** Value of one child share used (the child's close, or the given or FMV value), listing currency. */
  readonly childPrice: Decimal;
  /** "held": the child lots joined the account; "sold": sold on the date at `childPrice` (no price, or shorted). */
  readonly disposition: "held" | "sold";
  /** Cash paid by a short position of the parent (the child's value it owes the lender), USD, >= 0. */
  readonly shortPaymentUsd: Decimal;
}

/** One settled tax year (or the final, partial year). */
export interface TaxYearRecord {
  readonly year: number;
  /** Date the tax was paid (the year's last trading date in the window). */
  readonly date: string;
  /** Recognized short-/long-term net gains booked in the year (before carryforward). */
  readonly shortTerm: Decimal;
  readonly longTerm: Decimal;
  /** Tax owed (negative = saved through the capital-loss deduction). */
  readonly taxOwed: Decimal;
  /** Loss carried to the next year. */
  readonly carryforward: { readonly shortTerm: Decimal; readonly longTerm: Decimal };
  /**
   * Recognized losses of the harvest sales and covers booked in the year (<= 0 by character; a later wash sale
   * of a harvested loss books its disallowed part here, in the year of the purchase).
   */
  readonly harvestedShortTerm: Decimal;
  readonly harvestedLongTerm: Decimal;
  /**
   * Tax the year's harvested losses saved in that year: the year's tax without them minus the tax with them,
   * same carryforward in (>= 0 unless a wash sale undid a harvest of an earlier year).
   */
  readonly harvestSaving: Decimal;
}

/** One executed trade. */
export interface TradeFill {
  readonly date: string;
  readonly themeAssetId: string;
  readonly side: "buy" | "sell" | "short" | "cover";
  readonly quantity: Decimal;
  /** Close of the execution date, listing currency (costs are folded into the price of the lots). */
  readonly close: number;
  /** Gross USD value (quantity x close / fx). */
  readonly valueUsd: Decimal;
  readonly harvest: boolean;
}

/** Money totals of the trades executed so far (USD). */
export interface TradeTotals {
  /** Gross value bought (shares x close / fx), long buys and covers. */
  purchasesUsd: Decimal;
  /** Gross value sold, long sells and short sales. */
  salesUsd: Decimal;
  transactionCostUsd: Decimal;
  fxCostUsd: Decimal;
  dividendsUsd: Decimal;
  /** Orders that could not execute (no price on the execution date, or nothing to sell). */
  unfilledOrders: number;
  trades: number;
}

/** Initial holdings of a case. */
export interface InitialHoldings {
  readonly cashUsd: Decimal.Value;
  readonly lots?: readonly TaxLot[];
  readonly shortLots?: readonly BacktestShortLot[];
}

/** How a simulated account executes. */
export interface AccountBookOptions {
  readonly costs: TradingCosts;
  readonly tax: BacktestTaxSettings;
  /** Lot selection of sells that name no lots. */
  readonly lotSelection: LotSelectionPolicy;
  /** Prefix of the ids of lots the simulation creates. */
  readonly idPrefix: string;
}

function dec(v: Decimal.Value): Decimal {
  return new TaxDecimal(v);
}

/**
 * The simulated account of one case (mutable; owned by the simulator, never given to a policy: policies get a
 * {@link PortfolioSnapshot}). Date arguments `t` are indices into the market's dates.
 * @example
 * const book = new AccountBook(market, { cashUsd: 1e6 }, { costs, tax, lotSelection: "FIFO", idPrefix: "a-" });
 * book.execute(t, [{ side: "buy", column: 0, amountUsd: 5000 }]);
 * book.nav(t).eq(book.cash.plus(book.positionsValue(t))); // true
 */
export class AccountBook {
  readonly #market: BacktestMarket;
  readonly #options: AccountBookOptions;
  readonly #c: Decimal;
  readonly #f: Decimal;
  #cash: Decimal;
  readonly #lots: TaxLot[][];
  readonly #shorts: BacktestShortLot[][];
  /** Realized records per column, chronological; `#harvest` flags them in parallel. */
  readonly #realized: RealizedGain[][];
  readonly #harvest: boolean[][];
  readonly #covers: CoverRecord[] = [];
  /** Sales of spun-off children outside the tradable universe (no wash sale can reach them). */
  readonly #childSales: RealizedGain[] = [];
  readonly #spinOffs: SpinOffRecord[] = [];
  readonly #fills: TradeFill[] = [];
  /** Long and short shares per column (sums of the lots), kept in step with every change of the lots. */
  readonly #long: Decimal[];
  readonly #short: Decimal[];
  /** Float shares per column (long - short), for daily marks. */
  readonly #shares: Float64Array;
  readonly #lastLossSale: (string | null)[];
  readonly #lastShortLossCover: (string | null)[];
  /** Taxes paid at year ends so far (negative = refunds). */
  #taxesPaid: Decimal = ZERO;
  #openShortTerm: Decimal = ZERO;
  #openLongTerm: Decimal = ZERO;
  #openHarvestShortTerm: Decimal = ZERO;
  #openHarvestLongTerm: Decimal = ZERO;
  #carryShortTerm: Decimal = ZERO;
  #carryLongTerm: Decimal = ZERO;
  readonly #taxYears: TaxYearRecord[] = [];
  #seq = 0;
  readonly totals: TradeTotals = {
    purchasesUsd: ZERO,
    salesUsd: ZERO,
    transactionCostUsd: ZERO,
    fxCostUsd: ZERO,
    dividendsUsd: ZERO,
    unfilledOrders: 0,
    trades: 0,
  };

  /**
   * An account holding `initial` at the close of the first date.
   * @throws {RangeError} when a lot or short lot names an asset outside the market, or an asset is held both
   *   long and short.
   */
  constructor(market: BacktestMarket, initial: InitialHoldings, options: AccountBookOptions) {
    this.#market = market;
    this.#options = options;
    this.#c = dec(options.costs.transactionBps).dividedBy(BPS);
    this.#f = dec(options.costs.fxFeeBps).dividedBy(BPS);
    const n = market.ids.length;
    this.#cash = dec(initial.cashUsd);
    this.#lots = Array.from({ length: n }, () => []);
    this.#shorts = Array.from({ length: n }, () => []);
    this.#realized = Array.from({ length: n }, () => []);
    this.#harvest = Array.from({ length: n }, () => []);
    this.#shares = new Float64Array(n);
    this.#long = new Array<Decimal>(n).fill(ZERO);
    this.#short = new Array<Decimal>(n).fill(ZERO);
    this.#lastLossSale = new Array<string | null>(n).fill(null);
    this.#lastShortLossCover = new Array<string | null>(n).fill(null);
    for (const lot of initial.lots ?? []) {
      const i = market.column.get(lot.themeAssetId);
      if (i === undefined)
        throw new RangeError(
          `AccountBook: initial lot ${lot.id} holds ${lot.themeAssetId}, not in the universe`,
        );
      this.#lots[i]!.push(lot);
      if (lot.lastSoldForLossDate !== null && (this.#lastLossSale[i] ?? "") < lot.lastSoldForLossDate)
        this.#lastLossSale[i] = lot.lastSoldForLossDate;
    }
    for (const s of initial.shortLots ?? []) {
      const i = market.column.get(s.themeAssetId);
      if (i === undefined)
        throw new RangeError(`AccountBook: short lot ${s.id} is of ${s.themeAssetId}, not in the universe`);
      if (this.#lots[i]!.length > 0)
        throw new RangeError(
          `AccountBook: ${s.themeAssetId} is held both long and short; net the positions first`,
        );
      this.#shorts[i]!.push(s);
    }
    for (let i = 0; i < n; i++) this.#refreshShares(i);
  }

  /** USD cash. */
  get cash(): Decimal {
    return this.#cash;
  }

  /** Long lots of column `i`. */
  lots(i: number): readonly TaxLot[] {
    return this.#lots[i]!;
  }

  /** Short lots of column `i`. */
  shortLots(i: number): readonly BacktestShortLot[] {
    return this.#shorts[i]!;
  }

  /**
   * Every realized record (long sales), column by column, with its harvest flag; then the sales of spun-off
   * children sold on their distribution date (never harvests).
   */
  realizedRecords(): { record: RealizedGain; harvest: boolean }[] {
    const out: { record: RealizedGain; harvest: boolean }[] = [];
    this.#realized.forEach((list, i) => {
      list.forEach((record, k) => {
        out.push({ record, harvest: this.#harvest[i]![k]! });
      });
    });
    for (const record of this.#childSales) out.push({ record, harvest: false });
    return out;
  }

  /** Every spin-off applied to the account, in date order. */
  get spinOffs(): readonly SpinOffRecord[] {
    return this.#spinOffs;
  }

  /** Every executed trade, in execution order. */
  get fills(): readonly TradeFill[] {
    return this.#fills;
  }

  #fill(
    t: number,
    i: number,
    side: TradeFill["side"],
    quantity: Decimal,
    valueUsd: Decimal,
    harvest: boolean,
  ): void {
    const n = this.#market.ids.length;
    this.#fills.push({
      date: this.#market.dates[t]!,
      themeAssetId: this.#market.ids[i]!,
      side,
      quantity,
      close: this.#market.close[t * n + i]!,
      valueUsd,
      harvest,
    });
  }

  /** Every cover of a short lot. */
  get covers(): readonly CoverRecord[] {
    return this.#covers;
  }

  /** Taxes paid at year ends so far, USD (negative = refunded). */
  get taxesPaid(): Decimal {
    return this.#taxesPaid;
  }

  /** Settled tax years. */
  get taxYears(): readonly TaxYearRecord[] {
    return this.#taxYears;
  }

  /** Recognized net gains of the open tax year and the carryforward into it. */
  get openYear(): { shortTerm: Decimal; longTerm: Decimal; carryShortTerm: Decimal; carryLongTerm: Decimal } {
    return {
      shortTerm: this.#openShortTerm,
      longTerm: this.#openLongTerm,
      carryShortTerm: this.#carryShortTerm,
      carryLongTerm: this.#carryLongTerm,
    };
  }

  /** Long shares of column `i` (sum of its lots). */
  longQuantity(i: number): Decimal {
    return this.#long[i]!;
  }

  /** Shares owed on column `i` (sum of its short lots). */
  shortQuantity(i: number): Decimal {
    return this.#short[i]!;
  }

  /** Re-sums the lots of column `i` (after any change of them). */
  #refreshShares(i: number): void {
    let q = ZERO;
    for (const l of this.#lots[i]!) q = q.plus(l.quantity);
    let s = ZERO;
    for (const l of this.#shorts[i]!) s = s.plus(l.quantity);
    this.#long[i] = q;
    this.#short[i] = s;
    this.#shares[i] = q.minus(s).toNumber();
  }

  #price(t: number, i: number): Decimal {
    const p = this.#market.lastClose[t * this.#market.ids.length + i]!;
    if (Number.isNaN(p))
      throw new DataError(
        `No price of ${this.#market.ids[i]} on or before ${this.#market.dates[t]} to value the position.`,
        { code: "missing_price" },
      );
    return dec(p);
  }

  #fxFloat(t: number, i: number): number {
    const currency = this.#market.securities[i]!.currency;
    const v = this.#market.fx.get(currency)![t]!;
    if (Number.isNaN(v))
      throw new DataError(`No ${currency} per USD rate on or before ${this.#market.dates[t]}.`, {
        code: "missing_fx",
      });
    return v;
  }

  /** Exact NAV at the close of date index `t`, USD: cash + {@link positionsValue}. */
  nav(t: number): Decimal {
    return this.#cash.plus(this.positionsValue(t));
  }

  /** Exact value of the positions at the close of `t` (shorts negative), USD. */
  positionsValue(t: number): Decimal {
    let v = ZERO;
    for (let i = 0; i < this.#lots.length; i++) {
      if (this.#lots[i]!.length === 0 && this.#shorts[i]!.length === 0) continue;
      const q = this.longQuantity(i).minus(this.shortQuantity(i));
      if (q.isZero()) continue;
      const value = q.times(this.#price(t, i));
      v = v.plus(
        this.#market.securities[i]!.currency === "USD" ? value : value.dividedBy(this.#fxFloat(t, i)),
      );
    }
    return v;
  }

  /** Float NAV at the close of `t` (daily marks), USD. */
  navFloat(t: number): number {
    const n = this.#market.ids.length;
    const row = t * n;
    let v = this.#cash.toNumber();
    for (let i = 0; i < n; i++) {
      const s = this.#shares[i]!;
      if (s === 0) continue;
      const p = this.#market.lastClose[row + i]!;
      const currency = this.#market.securities[i]!.currency;
      v += currency === "USD" ? s * p : (s * p) / this.#fxFloat(t, i);
    }
    return v;
  }

  /** Read-only snapshot for a policy deciding at the close of `t`. */
  snapshot(t: number): PortfolioSnapshot {
    const n = this.#market.ids.length;
    const shares = Float64Array.from(this.#shares);
    const valuesUsd = new Float64Array(n);
    let nav = this.#cash.toNumber();
    for (let i = 0; i < n; i++) {
      if (shares[i] === 0) continue;
      const p = this.#market.lastClose[t * n + i]!;
      valuesUsd[i] = (shares[i]! * p) / this.#fxFloat(t, i);
      nav += valuesUsd[i]!;
    }
    const lots = this.#lots;
    const shorts = this.#shorts;
    const lastLoss = [...this.#lastLossSale];
    const lastCover = [...this.#lastShortLossCover];
    return {
      date: this.#market.dates[t]!,
      cashUsd: this.#cash.toNumber(),
      navUsd: nav,
      shares,
      valuesUsd,
      lots: (i) => lots[i]!,
      shortLots: (i) => shorts[i]!,
      lastLossSale: (i) => lastLoss[i] ?? null,
      lastShortLossCover: (i) => lastCover[i] ?? null,
    };
  }

  /** Splits effective at the open of `t`: lot quantities x ratio, basis unchanged (applySplit). */
  applySplits(t: number): void {
    for (const e of this.#market.splitsAt.get(t) ?? []) {
      const i = e.column;
      const id = this.#market.ids[i]!;
      const ratio = dec(e.value);
      if (this.#lots[i]!.length > 0) this.#lots[i] = applySplit(this.#lots[i]!, id, ratio);
      if (this.#shorts[i]!.length > 0)
        this.#shorts[i] = this.#shorts[i]!.map((s) => ({ ...s, quantity: s.quantity.times(ratio) }));
      this.#refreshShares(i);
    }
  }

  /**
   * Spin-offs distributed at the open of `t` (the same rule as the account ledger, core/ledger `spinOffLot`): every
   * long lot of the parent keeps (1 - f) of its basis and gives a child lot f of it, ratio x its shares, with its
   * acquisition date and holding period. A child priced on `t` and not held short joins the account (the policy
   * then trades it like any position). Otherwise the child lots are sold at the close of `t` at the child's value
   * ({@link spinOffChildValue}), less the transaction cost, through `applySale`: the gain or loss on the allocated
   * basis is realized, short- or long-term by the carried holding period. A short position of the parent pays the
   * child's value to the lender from cash, as it pays a dividend.
   */
  applySpinOffs(t: number): void {
    const n = this.#market.ids.length;
    const date = this.#market.dates[t]!;
    for (const e of this.#market.spinOffsAt.get(t) ?? []) {
      const i = e.column;
      const lots = this.#lots[i]!;
      const shorts = this.#shorts[i]!;
      if (lots.length === 0 && shorts.length === 0) continue;
      const value = spinOffChildValue(e, this.#market.close, n, t);
      if (Number.isNaN(value))
        throw new DataError(
          `Spin-off ${e.id} of ${this.#market.ids[i]} on ${date}: no close of the parent to value the child.`,
          { code: "missing_price" },
        );
      const childPrice = dec(value);
      const ratio = dec(e.ratio);
      const usd = this.#market.securities[i]!.currency === "USD";
      const fx = usd ? new TaxDecimal(1) : dec(this.#fxFloat(t, i));
      let shortPayment = ZERO;
      if (shorts.length > 0) {
        shortPayment = this.shortQuantity(i).times(ratio).times(childPrice).dividedBy(fx);
        this.#cash = this.#cash.minus(shortPayment);
        this.totals.dividendsUsd = this.totals.dividendsUsd.minus(shortPayment);
      }
      if (lots.length === 0) {
        this.#spinOffs.push({
          actionId: e.id,
          date,
          parentAssetId: this.#market.ids[i]!,
          childAssetId: e.childAssetId,
          parentQuantity: ZERO,
          basisToChildUsd: ZERO,
          childQuantity: ZERO,
          childPrice,
          disposition: "sold",
          shortPaymentUsd: shortPayment,
        });
        continue;
      }
      const terms = {
        actionId: e.id,
        childAssetId: e.childAssetId,
        ratio,
        basisFraction: dec(e.basisFraction),
      };
      const parents: TaxLot[] = [];
      const children: TaxLot[] = [];
      let parentQuantity = ZERO;
      let childQuantity = ZERO;
      let basisToChild = ZERO;
      for (const lot of lots) {
        const { parent, child } = spinOffLot(lot, terms);
        parents.push(parent);
        children.push(child);
        parentQuantity = parentQuantity.plus(lot.quantity);
        childQuantity = childQuantity.plus(child.quantity);
        basisToChild = basisToChild.plus(child.totalCostBasis.dividedBy(child.fxRate));
      }
      this.#lots[i] = parents;
      const c = e.childColumn;
      const held =
        c !== null && !Number.isNaN(this.#market.close[t * n + c]!) && this.#shorts[c]!.length === 0;
      if (held) {
        this.#lots[c] = [...this.#lots[c]!, ...children];
        this.#refreshShares(c);
      } else {
        // Sold at the close of t at the child's value less the transaction cost (and the FX fee off USD).
        const f = usd ? ZERO : this.#f;
        const price = childPrice.times(new TaxDecimal(1).minus(this.#c).minus(f));
        const result = applySale(
          children,
          {
            themeAssetId: e.childAssetId,
            quantity: childQuantity,
            price,
            date,
            fxRate: fx,
            policy: "FIFO",
          },
          this.#options.tax.rules,
        );
        for (const r of result.realized) {
          this.#childSales.push(r);
          this.#book(r.term, r.recognizedGainUsd);
        }
        const gross = childQuantity.times(childPrice).dividedBy(fx);
        this.#cash = this.#cash.plus(childQuantity.times(price).dividedBy(fx));
        this.totals.salesUsd = this.totals.salesUsd.plus(gross);
        this.totals.transactionCostUsd = this.totals.transactionCostUsd.plus(gross.times(this.#c));
        this.totals.fxCostUsd = this.totals.fxCostUsd.plus(gross.times(f));
      }
      this.#refreshShares(i);
      this.#spinOffs.push({
        actionId: e.id,
        date,
        parentAssetId: this.#market.ids[i]!,
        childAssetId: e.childAssetId,
        parentQuantity,
        basisToChildUsd: basisToChild,
        childQuantity,
        childPrice,
        disposition: held ? "held" : "sold",
        shortPaymentUsd: shortPayment,
      });
    }
  }

  /**
   * Cash dividends going ex on `t`: paid on the shares held at the previous close (pay date = ex-date),
   * converted to USD at the day's rate without a fee; a short position pays the dividend to the lender.
   */
  applyDividends(t: number): void {
    for (const e of this.#market.dividendsAt.get(t) ?? []) {
      const i = e.column;
      const q = this.longQuantity(i).minus(this.shortQuantity(i));
      if (q.isZero()) continue;
      const local = q.times(dec(e.value));
      const usd =
        this.#market.securities[i]!.currency === "USD" ? local : local.dividedBy(this.#fxFloat(t, i));
      this.#cash = this.#cash.plus(usd);
      this.totals.dividendsUsd = this.totals.dividendsUsd.plus(usd);
    }
  }

  #nextId(): string {
    this.#seq += 1;
    return `${this.#options.idPrefix}${String(this.#seq).padStart(6, "0")}`;
  }

  /**
   * Adds a recognized gain (or a change of one) to the open tax year, by character; `harvest` also counts it
   * among the year's harvested losses.
   */
  #book(term: "short_term" | "long_term", amount: Decimal, harvest = false): void {
    if (term === "short_term") this.#openShortTerm = this.#openShortTerm.plus(amount);
    else this.#openLongTerm = this.#openLongTerm.plus(amount);
    if (!harvest) return;
    if (term === "short_term") this.#openHarvestShortTerm = this.#openHarvestShortTerm.plus(amount);
    else this.#openHarvestLongTerm = this.#openHarvestLongTerm.plus(amount);
  }

  /**
   * Executes the orders decided at the previous rebalance, at the close of `t`: long sells, short sales,
   * covers, then buys. Buys share the cash left (never below zero): when they ask for more, each is scaled
   * by the same factor. Orders of a column without a close on `t` are not filled (counted).
   * @throws {RangeError} for an order column outside the universe or a negative or non-finite buy amount.
   * @throws {TaxLotError} for a sell naming a lot the account does not hold.
   */
  execute(t: number, orders: readonly PolicyOrder[]): void {
    const n = this.#market.ids.length;
    const priced = (i: number) => !Number.isNaN(this.#market.close[t * n + i]!);
    const buys: { column: number; amountUsd: number }[] = [];
    const covers: Extract<PolicyOrder, { side: "cover" }>[] = [];
    for (const o of orders) {
      if (!Number.isInteger(o.column) || o.column < 0 || o.column >= n)
        throw new RangeError(`AccountBook.execute: order column ${o.column} is outside 0..${n - 1}`);
      if (!priced(o.column)) {
        this.totals.unfilledOrders += 1;
        continue;
      }
      if (o.side === "sell") this.#sell(t, o);
      else if (o.side === "short") this.#shortSale(t, o.column, dec(o.quantity));
      else if (o.side === "cover") covers.push(o);
      else {
        if (!Number.isFinite(o.amountUsd) || o.amountUsd < 0)
          throw new RangeError(
            `AccountBook.execute: buy of ${this.#market.ids[o.column]} has amount ${o.amountUsd}`,
          );
        if (o.amountUsd > 0) buys.push(o);
      }
    }
    for (const o of covers) this.#cover(t, o);
    if (buys.length === 0) return;
    let wanted = ZERO;
    for (const b of buys) wanted = wanted.plus(dec(b.amountUsd));
    if (!this.#cash.gt(0)) {
      this.totals.unfilledOrders += buys.length;
      return;
    }
    const scale = wanted.gt(this.#cash) ? this.#cash.dividedBy(wanted) : null;
    for (const b of buys) {
      const amount = scale === null ? dec(b.amountUsd) : dec(b.amountUsd).times(scale);
      this.#buy(t, b.column, amount.lt(this.#cash) ? amount : this.#cash);
    }
  }

  #sell(t: number, o: Extract<PolicyOrder, { side: "sell" }>): void {
    const i = o.column;
    const id = this.#market.ids[i]!;
    const lots = this.#lots[i]!;
    const held = this.longQuantity(i);
    let quantity: Decimal;
    let specific: SpecificLotRequest[] | undefined;
    if (o.lots !== undefined) {
      specific = [];
      quantity = ZERO;
      for (const r of o.lots) {
        const lot = lots.find((l) => l.id === r.lotId);
        if (!lot)
          throw new TaxLotError(
            `A sell order of ${id} on ${this.#market.dates[t]} names lot ${r.lotId}, which the account does not hold.`,
            { code: "unknown_lot" },
          );
        const q = dec(r.quantity).gt(lot.quantity) ? lot.quantity : dec(r.quantity);
        if (q.lte(0)) continue;
        specific.push({ lotId: r.lotId, quantity: q });
        quantity = quantity.plus(q);
      }
    } else {
      quantity = dec(o.quantity ?? 0).toDecimalPlaces(QUANTITY_DECIMALS, TaxDecimal.ROUND_HALF_UP);
      if (quantity.gt(held)) quantity = held;
    }
    if (quantity.lte(0)) {
      this.totals.unfilledOrders += 1;
      return;
    }
    const close = dec(this.#market.close[t * this.#market.ids.length + i]!);
    const usd = this.#market.securities[i]!.currency === "USD";
    const f = usd ? ZERO : this.#f;
    const price = close.times(new TaxDecimal(1).minus(this.#c).minus(f));
    const fx = usd ? new TaxDecimal(1) : dec(this.#fxFloat(t, i));
    const date = this.#market.dates[t]!;
    const result = applySale(
      lots,
      {
        themeAssetId: id,
        quantity,
        price,
        date,
        fxRate: fx,
        ...(specific === undefined
          ? { policy: this.#options.lotSelection }
          : { policy: "SPECIFIC" as const, specificLots: specific }),
      },
      this.#options.tax.rules,
    );
    this.#lots[i] = result.lots;
    const harvest = o.harvest === true;
    for (const r of result.realized) {
      this.#realized[i]!.push(r);
      this.#harvest[i]!.push(harvest);
      this.#book(r.term, r.recognizedGainUsd, harvest && r.recognizedGainUsd.isNegative());
      if (isLossSale(r) && (this.#lastLossSale[i] ?? "") < date) this.#lastLossSale[i] = date;
    }
    const gross = quantity.times(close).dividedBy(fx);
    this.#fill(t, i, "sell", quantity, gross, harvest);
    this.#cash = this.#cash.plus(quantity.times(price).dividedBy(fx));
    this.totals.salesUsd = this.totals.salesUsd.plus(gross);
    this.totals.transactionCostUsd = this.totals.transactionCostUsd.plus(gross.times(this.#c));
    this.totals.fxCostUsd = this.totals.fxCostUsd.plus(gross.times(f));
    this.totals.trades += 1;
    this.#refreshShares(i);
  }

  #buy(t: number, i: number, amountUsd: Decimal): void {
    if (this.#shorts[i]!.length > 0) {
      // A long buy of a shorted asset covers first (positions are netted, never long and short at once).
      this.totals.unfilledOrders += 1;
      return;
    }
    const id = this.#market.ids[i]!;
    const security = this.#market.securities[i]!;
    const usd = security.currency === "USD";
    const close = dec(this.#market.close[t * this.#market.ids.length + i]!);
    const f = usd ? ZERO : this.#f;
    const price = close.times(new TaxDecimal(1).plus(this.#c).plus(f));
    const fx = usd ? new TaxDecimal(1) : dec(this.#fxFloat(t, i));
    let quantity = amountUsd
      .times(fx)
      .dividedBy(price)
      .toDecimalPlaces(QUANTITY_DECIMALS, TaxDecimal.ROUND_DOWN);
    let cost = quantity.times(price).dividedBy(fx);
    // 64-digit rounding of the division could put the cost a hair above the amount: one step less.
    if (cost.gt(amountUsd)) {
      quantity = quantity.minus(new TaxDecimal(10).pow(-QUANTITY_DECIMALS));
      cost = quantity.times(price).dividedBy(fx);
    }
    if (quantity.lte(0)) {
      this.totals.unfilledOrders += 1;
      return;
    }
    const date = this.#market.dates[t]!;
    // Loss sales that this purchase can wash: the column's records sold within the window.
    const window = this.#options.tax.rules.washSaleThresholdDays ?? 30;
    const records = this.#realized[i]!;
    let from = records.length;
    while (from > 0 && daysBetween(records[from - 1]!.saleDate, date) <= window) from -= 1;
    const recent = records.slice(from);
    const result = applyPurchase(
      this.#lots[i]!,
      {
        id: this.#nextId(),
        themeAssetId: id,
        quantity,
        price,
        date,
        currency: security.currency,
        fxRate: fx,
      },
      recent,
      this.#options.tax.rules,
    );
    for (let k = 0; k < recent.length; k++) {
      const before = recent[k]!;
      const after = result.realized[k]!;
      if (!after.recognizedGainUsd.eq(before.recognizedGainUsd))
        // A disallowed loss leaves the year in which the purchase is booked (see docs/backtests.md).
        this.#book(
          after.term,
          after.recognizedGainUsd.minus(before.recognizedGainUsd),
          this.#harvest[i]![from + k] === true && before.recognizedGainUsd.isNegative(),
        );
      records[from + k] = after;
    }
    this.#lots[i] = result.lots;
    const gross = quantity.times(close).dividedBy(fx);
    this.#fill(t, i, "buy", quantity, gross, false);
    this.#cash = this.#cash.minus(cost);
    this.totals.purchasesUsd = this.totals.purchasesUsd.plus(gross);
    this.totals.transactionCostUsd = this.totals.transactionCostUsd.plus(gross.times(this.#c));
    this.totals.fxCostUsd = this.totals.fxCostUsd.plus(gross.times(f));
    this.totals.trades += 1;
    this.#refreshShares(i);
  }

  #shortSale(t: number, i: number, requested: Decimal): void {
    const quantity = requested.toDecimalPlaces(QUANTITY_DECIMALS, TaxDecimal.ROUND_DOWN);
    if (quantity.lte(0) || this.#lots[i]!.length > 0) {
      // Positions are netted: sell the long lots before shorting.
      this.totals.unfilledOrders += 1;
      return;
    }
    const security = this.#market.securities[i]!;
    const usd = security.currency === "USD";
    const close = dec(this.#market.close[t * this.#market.ids.length + i]!);
    const f = usd ? ZERO : this.#f;
    const price = close.times(new TaxDecimal(1).minus(this.#c).minus(f));
    const fx = usd ? new TaxDecimal(1) : dec(this.#fxFloat(t, i));
    const proceeds = quantity.times(price);
    this.#shorts[i]!.push({
      id: this.#nextId(),
      themeAssetId: security.themeAssetId,
      quantity,
      proceeds,
      fxRate: fx,
      openDate: this.#market.dates[t]!,
    });
    const gross = quantity.times(close).dividedBy(fx);
    this.#fill(t, i, "short", quantity, gross, false);
    this.#cash = this.#cash.plus(proceeds.dividedBy(fx));
    this.totals.salesUsd = this.totals.salesUsd.plus(gross);
    this.totals.transactionCostUsd = this.totals.transactionCostUsd.plus(gross.times(this.#c));
    this.totals.fxCostUsd = this.totals.fxCostUsd.plus(gross.times(f));
    this.totals.trades += 1;
    this.#refreshShares(i);
  }

  #cover(t: number, o: Extract<PolicyOrder, { side: "cover" }>): void {
    const i = o.column;
    const security = this.#market.securities[i]!;
    const usd = security.currency === "USD";
    const close = dec(this.#market.close[t * this.#market.ids.length + i]!);
    const f = usd ? ZERO : this.#f;
    const price = close.times(new TaxDecimal(1).plus(this.#c).plus(f));
    const fx = usd ? new TaxDecimal(1) : dec(this.#fxFloat(t, i));
    const date = this.#market.dates[t]!;
    const lots = this.#shorts[i]!;
    // Lots to close, in order: the named ones, else the lowest USD proceeds per share first (losses first).
    let order: BacktestShortLot[];
    let wanted: Decimal;
    if (o.shortLotIds !== undefined) {
      const ids = new Set(o.shortLotIds);
      order = lots.filter((l) => ids.has(l.id));
      wanted = order.reduce((s, l) => s.plus(l.quantity), ZERO);
    } else {
      const perShare = (l: BacktestShortLot) => l.proceeds.dividedBy(l.fxRate).dividedBy(l.quantity);
      order = [...lots].sort(
        (a, b) =>
          perShare(a).comparedTo(perShare(b)) ||
          (a.openDate < b.openDate ? -1 : a.openDate > b.openDate ? 1 : 0),
      );
      const owed = this.shortQuantity(i);
      wanted = dec(o.quantity ?? 0).toDecimalPlaces(QUANTITY_DECIMALS, TaxDecimal.ROUND_HALF_UP);
      if (wanted.gt(owed)) wanted = owed;
    }
    if (wanted.lte(0)) {
      this.totals.unfilledOrders += 1;
      return;
    }
    let left = wanted;
    const remaining = new Map(lots.map((l) => [l.id, l]));
    for (const lot of order) {
      if (left.lte(0)) break;
      const q = lot.quantity.lte(left) ? lot.quantity : left;
      left = left.minus(q);
      const proceeds = q.eq(lot.quantity) ? lot.proceeds : lot.proceeds.times(q).dividedBy(lot.quantity);
      const proceedsUsd = proceeds.dividedBy(lot.fxRate);
      const costUsd = q.times(price).dividedBy(fx);
      const gain = proceedsUsd.minus(costUsd);
      this.#covers.push({
        lotId: lot.id,
        themeAssetId: lot.themeAssetId,
        quantity: q,
        openDate: lot.openDate,
        coverDate: date,
        proceedsUsd,
        costUsd,
        gainUsd: gain,
        harvest: o.harvest === true,
      });
      this.#book("short_term", gain, o.harvest === true && gain.isNegative());
      if (gain.isNegative() && !gain.isZero()) this.#lastShortLossCover[i] = date;
      if (q.eq(lot.quantity)) remaining.delete(lot.id);
      else
        remaining.set(lot.id, {
          ...lot,
          quantity: lot.quantity.minus(q),
          proceeds: lot.proceeds.minus(proceeds),
        });
    }
    this.#shorts[i] = lots.filter((l) => remaining.has(l.id)).map((l) => remaining.get(l.id)!);
    const gross = wanted.times(close).dividedBy(fx);
    this.#fill(t, i, "cover", wanted, gross, o.harvest === true);
    this.#cash = this.#cash.minus(wanted.times(price).dividedBy(fx));
    this.totals.purchasesUsd = this.totals.purchasesUsd.plus(gross);
    this.totals.transactionCostUsd = this.totals.transactionCostUsd.plus(gross.times(this.#c));
    this.totals.fxCostUsd = this.totals.fxCostUsd.plus(gross.times(f));
    this.totals.trades += 1;
    this.#refreshShares(i);
  }

  /**
   * Settles the open tax year on date index `t` (its last trading date): Schedule D netting with the
   * carryforward (settleTaxYear); the tax is paid from cash (a negative tax is credited).
   */
  settleYear(t: number): TaxYearRecord {
    const date = this.#market.dates[t]!;
    const s = this.#settlement(this.#openShortTerm, this.#openLongTerm);
    const record: TaxYearRecord = {
      year: Number(date.slice(0, 4)),
      date,
      shortTerm: this.#openShortTerm,
      longTerm: this.#openLongTerm,
      taxOwed: s.taxOwed,
      carryforward: s.carryforward,
      ...this.#harvestOfOpenYear(s.taxOwed),
    };
    this.#cash = this.#cash.minus(s.taxOwed);
    this.#taxesPaid = this.#taxesPaid.plus(s.taxOwed);
    this.#taxYears.push(record);
    this.#openShortTerm = ZERO;
    this.#openLongTerm = ZERO;
    this.#openHarvestShortTerm = ZERO;
    this.#openHarvestLongTerm = ZERO;
    this.#carryShortTerm = s.carryforward.shortTerm;
    this.#carryLongTerm = s.carryforward.longTerm;
    return record;
  }

  /** The open year's harvested losses and the tax they saved, given the year's tax `taxOwed` with them. */
  #harvestOfOpenYear(
    taxOwed: Decimal,
  ): Pick<TaxYearRecord, "harvestedShortTerm" | "harvestedLongTerm" | "harvestSaving"> {
    const hs = this.#openHarvestShortTerm;
    const hl = this.#openHarvestLongTerm;
    const without =
      hs.isZero() && hl.isZero()
        ? taxOwed
        : this.#settlement(this.#openShortTerm.minus(hs), this.#openLongTerm.minus(hl)).taxOwed;
    return { harvestedShortTerm: hs, harvestedLongTerm: hl, harvestSaving: without.minus(taxOwed) };
  }

  #settlement(
    shortTerm: Decimal,
    longTerm: Decimal,
  ): {
    taxOwed: Decimal;
    carryforward: { shortTerm: Decimal; longTerm: Decimal };
  } {
    const tax = this.#options.tax;
    if (tax.lossUsage === "outside_gains")
      return {
        taxOwed: taxCost(
          { shortTerm, longTerm },
          { shortTermRate: tax.shortTermRate, longTermRate: tax.longTermRate },
        ),
        carryforward: { shortTerm: ZERO, longTerm: ZERO },
      };
    return settleTaxYear({
      shortTerm,
      longTerm,
      carryforward: { shortTerm: this.#carryShortTerm, longTerm: this.#carryLongTerm },
      shortTermRate: tax.shortTermRate,
      longTermRate: tax.longTermRate,
      ordinaryIncomeRate: tax.ordinaryIncomeRate,
      lossDeductionLimit: tax.lossDeductionLimit,
    });
  }

  /**
   * The final, partial tax year at date index `t`, settled twice without touching the account: as is (the
   * tax the strategy's own sales owe) and after a hypothetical liquidation of every position at the close
   * of `t` (no trading cost), for the after-tax liquidation value.
   */
  finalSettlement(t: number): {
    year: TaxYearRecord;
    liquidation: { shortTerm: Decimal; longTerm: Decimal; taxOwed: Decimal };
  } {
    const date = this.#market.dates[t]!;
    const asIs = this.#settlement(this.#openShortTerm, this.#openLongTerm);
    let st = ZERO;
    let lt = ZERO;
    for (let i = 0; i < this.#lots.length; i++) {
      const lots = this.#lots[i]!;
      if (lots.length > 0) {
        // Selling every lot leaves no replacement shares: no wash sale, each lot realizes its unrealized gain.
        const price = this.#price(t, i);
        const fxRate = this.#market.securities[i]!.currency === "USD" ? 1 : this.#fxFloat(t, i);
        for (const lot of lots) {
          const g = unrealizedGain(lot, price, date, { fxRate, ...this.#options.tax.rules });
          if (g.term === "short_term") st = st.plus(g.gainUsd);
          else lt = lt.plus(g.gainUsd);
        }
      }
      for (const s of this.#shorts[i]!) {
        const costUsd = s.quantity.times(this.#price(t, i)).dividedBy(this.#fxFloat(t, i));
        st = st.plus(s.proceeds.dividedBy(s.fxRate).minus(costUsd));
      }
    }
    const liquidated = this.#settlement(this.#openShortTerm.plus(st), this.#openLongTerm.plus(lt));
    return {
      year: {
        year: Number(date.slice(0, 4)),
        date,
        shortTerm: this.#openShortTerm,
        longTerm: this.#openLongTerm,
        taxOwed: asIs.taxOwed,
        carryforward: asIs.carryforward,
        ...this.#harvestOfOpenYear(asIs.taxOwed),
      },
      liquidation: { shortTerm: st, longTerm: lt, taxOwed: liquidated.taxOwed },
    };
  }
}
