/**
 * @module core/tax/lot
 * The tax lot: shares of one asset bought together, with their cost basis, FX rate and dates.
 *
 * A lot stores its TOTAL cost basis in the lot currency, not the per-share basis: splits and partial sales
 * then conserve basis exactly (the remainder is `total - consumed`, a subtraction, never a re-multiplied
 * rounded per-share figure). Per-share and USD values are derived. FX follows the shared convention:
 * `fxRate` = units of the lot currency per 1 USD on the purchase date, so `basis_usd = basis / fxRate`.
 */

import type { Decimal } from "decimal.js";
import { CURRENCIES, type Currency } from "../data/types.js";
import { isIsoDate } from "../dates.js";
import { ONE, TaxDecimal, toNonNegativeDecimal, toPositiveDecimal } from "./decimal.js";

/**
 * One tax lot. Values are immutable: every operation of the tax engine returns new lots.
 * `holdingPeriodStart` equals `tradeDate` unless a wash sale tacked the holding period of sold shares on
 * (IRC §1223, wash-sale paragraph); it is then earlier than `tradeDate` by the days the sold shares had been held.
 */
export interface TaxLot {
  readonly id: string;
  /** Owning account; lots of several accounts of one client may be mixed (household wash sales). */
  readonly accountId?: string;
  /** `SYMBOL:MIC`. */
  readonly themeAssetId: string;
  /** Shares held, > 0; fractional shares allowed. */
  readonly quantity: Decimal;
  /** Total cost basis in the lot currency, >= 0, including any wash-sale adjustment. */
  readonly totalCostBasis: Decimal;
  /** Currency of the cost basis (the listing currency of the asset). */
  readonly currency: Currency;
  /** Units of `currency` per 1 USD at purchase (1 for USD lots). */
  readonly fxRate: Decimal;
  /** Acquisition date (`YYYY-MM-DD`). */
  readonly tradeDate: string;
  /** Date the holding period counts from; <= tradeDate. */
  readonly holdingPeriodStart: string;
  /** Date the basis and holding period were last adjusted by a wash sale; null when never. */
  readonly washSaleDate: string | null;
  /** Last date shares of this lot were sold at a loss; null when never. */
  readonly lastSoldForLossDate: string | null;
}

/** Input of {@link createLot}: decimals may be given as strings or numbers; give exactly one basis form. */
export interface TaxLotInput {
  id: string;
  accountId?: string;
  themeAssetId: string;
  quantity: Decimal.Value;
  /** Cost basis per share in the lot currency (the spec's `cost_basis` with `cost_basis_unit: per_share`). */
  costBasisPerShare?: Decimal.Value;
  /** Total cost basis in the lot currency (`cost_basis_unit: total`). */
  totalCostBasis?: Decimal.Value;
  /** @default "USD" */
  currency?: Currency;
  /** Units of currency per USD at purchase. @default 1 */
  fxRate?: Decimal.Value;
  tradeDate: string;
  /** @default tradeDate */
  holdingPeriodStart?: string;
  /** @default null */
  washSaleDate?: string | null;
  /** @default null */
  lastSoldForLossDate?: string | null;
}

/**
 * The message prefix of a failed check, built only when a check fails (every lot passes through here: no string
 * and no closure per lot).
 */
function lotAt(where: string, lot: TaxLot): string {
  return `${where}: lot ${lot.id}`;
}

function assertFiniteDecimal(v: unknown, where: string, lot: TaxLot, field: string): void {
  if (v === null || typeof v !== "object" || typeof (v as Decimal).isFinite !== "function")
    throw new TypeError(`${lotAt(where, lot)}: ${field} must be a Decimal`);
  if (!(v as Decimal).isFinite()) throw new RangeError(`${lotAt(where, lot)}: ${field} is not finite`);
}

function checkDate(value: string | null, where: string, lot: TaxLot, field: string): void {
  if (value !== null && !isIsoDate(value))
    throw new RangeError(`${lotAt(where, lot)}: ${field}: "${value}" is not a YYYY-MM-DD date`);
}

/**
 * Builds a validated {@link TaxLot}. A per-share basis is multiplied out exactly (`total = per_share x quantity`).
 * The lot is frozen: the tax engine never modifies a lot (it returns new ones), and it computes a frozen lot's
 * checks and per-share basis once however many times the lot is passed to it.
 * @throws {TypeError} when neither or both of `costBasisPerShare` / `totalCostBasis` are given, or a decimal
 *   does not parse.
 * @throws {RangeError} for quantity <= 0, negative basis, fxRate <= 0, a USD lot with fxRate != 1, an unknown
 *   currency, a bad date, or a holding-period start after the trade date.
 * @example createLot({ id: "L1", themeAssetId: "AAPL:XNAS", quantity: "10", costBasisPerShare: "150.25",
 *   tradeDate: "2024-01-02" }).totalCostBasis.toString() // "1502.5"
 */
export function createLot(input: TaxLotInput): TaxLot {
  const where = `createLot(${input.id})`;
  if (typeof input.id !== "string" || input.id.length === 0)
    throw new TypeError("createLot: id must be a non-empty string");
  if (typeof input.themeAssetId !== "string" || input.themeAssetId.length === 0)
    throw new TypeError(`${where}: themeAssetId must be a non-empty string`);
  const quantity = toPositiveDecimal(input.quantity, `${where}: quantity`);
  const hasPerShare = input.costBasisPerShare !== undefined;
  const hasTotal = input.totalCostBasis !== undefined;
  if (hasPerShare === hasTotal)
    throw new TypeError(`${where}: give exactly one of costBasisPerShare and totalCostBasis`);
  const totalCostBasis = hasPerShare
    ? toNonNegativeDecimal(input.costBasisPerShare!, `${where}: costBasisPerShare`).times(quantity)
    : toNonNegativeDecimal(input.totalCostBasis!, `${where}: totalCostBasis`);
  const currency = input.currency ?? "USD";
  const fxRate = input.fxRate === undefined ? ONE : toPositiveDecimal(input.fxRate, `${where}: fxRate`);
  const lot: TaxLot = {
    id: input.id,
    ...(input.accountId === undefined ? {} : { accountId: input.accountId }),
    themeAssetId: input.themeAssetId,
    quantity,
    totalCostBasis,
    currency,
    fxRate,
    tradeDate: input.tradeDate,
    holdingPeriodStart: input.holdingPeriodStart ?? input.tradeDate,
    washSaleDate: input.washSaleDate ?? null,
    lastSoldForLossDate: input.lastSoldForLossDate ?? null,
  };
  Object.freeze(lot);
  assertValidLot(lot, "createLot");
  return lot;
}

/**
 * The fields of a lot read back from storage that validated it when it was written (the store's lots went through
 * the contract's lot schema): decimals as the exact strings stored, `costBasis` per share or total as
 * `costBasisIsTotal` says, `holdingPeriodStart` null (or empty) when it is the trade date.
 */
export interface TrustedLotFields {
  id: string;
  accountId?: string;
  themeAssetId: string;
  quantity: string;
  costBasis: string;
  costBasisIsTotal: boolean;
  currency: Currency;
  fxRate: string;
  tradeDate: string;
  holdingPeriodStart: string | null;
  washSaleDate: string | null;
  lastSoldForLossDate: string | null;
}

/**
 * Builds the {@link TaxLot} that {@link createLot} builds from the same fields (same values, same keys in the same
 * order) without re-checking them: for bulk reads of stored lots (a proposal converts every lot of an account and
 * its household per request). Invalid input is not detected here; the tax functions still check every lot they
 * are given ({@link prepareLots}).
 * @param shared decimals already parsed, by their text, for quantities and FX rates (few distinct values repeat
 *   across lots); lots then share those Decimal instances, which is safe because Decimals are immutable.
 */
export function lotFromTrusted(f: TrustedLotFields, shared?: Map<string, Decimal>): TaxLot {
  const quantity = sharedDecimal(f.quantity, shared);
  const basis = f.costBasisIsTotal
    ? new TaxDecimal(f.costBasis)
    : perShareTotal(f.costBasis, f.quantity, quantity);
  // Two literals rather than a conditional spread: createLot's keys in createLot's order, without a spread per lot
  // on a path that converts every lot of an account.
  const lot: TaxLot =
    f.accountId === undefined
      ? {
          id: f.id,
          themeAssetId: f.themeAssetId,
          quantity,
          totalCostBasis: basis,
          currency: f.currency,
          fxRate: sharedDecimal(f.fxRate, shared),
          tradeDate: f.tradeDate,
          holdingPeriodStart: f.holdingPeriodStart ? f.holdingPeriodStart : f.tradeDate,
          washSaleDate: f.washSaleDate,
          lastSoldForLossDate: f.lastSoldForLossDate,
        }
      : {
          id: f.id,
          accountId: f.accountId,
          themeAssetId: f.themeAssetId,
          quantity,
          totalCostBasis: basis,
          currency: f.currency,
          fxRate: sharedDecimal(f.fxRate, shared),
          tradeDate: f.tradeDate,
          holdingPeriodStart: f.holdingPeriodStart ? f.holdingPeriodStart : f.tradeDate,
          washSaleDate: f.washSaleDate,
          lastSoldForLossDate: f.lastSoldForLossDate,
        };
  return lot;
}

/**
 * `perShare x quantity` as {@link createLot} computes it (`new TaxDecimal(perShare).times(quantity)`, exact: the
 * product of a decimal(30,10) and a decimal(10,10) has at most 60 significant digits). When both digit strings
 * together have at most 15 digits, their integer product is exact in a double, so the product's text is built from
 * it and parsed once: the same Decimal for a third of the time and garbage of the multiplication.
 */
function perShareTotal(perShare: string, quantityText: string, quantity: Decimal): Decimal {
  const pa = perShare.indexOf(".");
  const qa = quantityText.indexOf(".");
  const pDigits = pa < 0 ? perShare : perShare.slice(0, pa) + perShare.slice(pa + 1);
  const qDigits = qa < 0 ? quantityText : quantityText.slice(0, qa) + quantityText.slice(qa + 1);
  if (pDigits.length + qDigits.length > 15 || !PLAIN_DIGITS.test(pDigits) || !PLAIN_DIGITS.test(qDigits))
    return new TaxDecimal(perShare).times(quantity);
  const scale = (pa < 0 ? 0 : perShare.length - pa - 1) + (qa < 0 ? 0 : quantityText.length - qa - 1);
  let digits = String(Number(pDigits) * Number(qDigits));
  if (scale === 0) return new TaxDecimal(digits);
  if (digits.length <= scale) digits = "0".repeat(scale - digits.length + 1) + digits;
  return new TaxDecimal(`${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`);
}

const PLAIN_DIGITS = /^\d+$/;

function sharedDecimal(text: string, shared: Map<string, Decimal> | undefined): Decimal {
  if (shared === undefined) return new TaxDecimal(text);
  let d = shared.get(text);
  if (d === undefined) {
    d = new TaxDecimal(text);
    shared.set(text, d);
  }
  return d;
}

/**
 * Checks one lot's invariants (used at the entry of every public tax function).
 * @throws {TypeError} for missing identifiers or non-Decimal fields.
 * @throws {RangeError} for an invariant violation, naming `where`, the lot id and the field.
 */
export function assertValidLot(lot: TaxLot, where: string): void {
  // A frozen lot that passed once passes again (every check reads only the lot's own fields).
  if (validFrozenLots.has(lot)) return;
  if (typeof lot.id !== "string" || lot.id.length === 0) throw new TypeError(`${where}: a lot has no id`);
  if (typeof lot.themeAssetId !== "string" || lot.themeAssetId.length === 0)
    throw new TypeError(`${lotAt(where, lot)}: themeAssetId must be a non-empty string`);
  assertFiniteDecimal(lot.quantity, where, lot, "quantity");
  assertFiniteDecimal(lot.totalCostBasis, where, lot, "totalCostBasis");
  assertFiniteDecimal(lot.fxRate, where, lot, "fxRate");
  // Sign tests instead of lte(0) / lt(0): comparing with a literal builds a Decimal per call (hot: every lot).
  if (lot.quantity.isZero() || lot.quantity.isNegative())
    throw new RangeError(`${lotAt(where, lot)}: quantity must be > 0, got ${lot.quantity.toString()}`);
  if (!lot.totalCostBasis.isZero() && lot.totalCostBasis.isNegative())
    throw new RangeError(
      `${lotAt(where, lot)}: totalCostBasis must be >= 0, got ${lot.totalCostBasis.toString()}`,
    );
  if (lot.fxRate.isZero() || lot.fxRate.isNegative())
    throw new RangeError(`${lotAt(where, lot)}: fxRate must be > 0, got ${lot.fxRate.toString()}`);
  if (!(CURRENCIES as readonly string[]).includes(lot.currency))
    throw new RangeError(
      `${lotAt(where, lot)}: unknown currency "${lot.currency}" (known: ${CURRENCIES.join(", ")})`,
    );
  if (lot.currency === "USD" && !lot.fxRate.eq(ONE))
    throw new RangeError(`${lotAt(where, lot)}: a USD lot has fxRate 1, got ${lot.fxRate.toString()}`);
  checkDate(lot.tradeDate, where, lot, "tradeDate");
  checkDate(lot.holdingPeriodStart, where, lot, "holdingPeriodStart");
  checkDate(lot.washSaleDate, where, lot, "washSaleDate");
  checkDate(lot.lastSoldForLossDate, where, lot, "lastSoldForLossDate");
  if (lot.holdingPeriodStart > lot.tradeDate)
    throw new RangeError(
      `${lotAt(where, lot)}: holdingPeriodStart ${lot.holdingPeriodStart} is after tradeDate ${lot.tradeDate}`,
    );
  if (Object.isFrozen(lot)) validFrozenLots.add(lot);
}

/**
 * Frozen lots already checked by {@link assertValidLot}. A frozen lot cannot change (its Decimals are never
 * modified in place by lotwise or decimal.js), so the lots a caller keeps and passes again, such as
 * {@link createLot}'s or the service's memo of stored lots, are checked once.
 */
const validFrozenLots = new WeakSet<TaxLot>();

/**
 * Checks every lot and that ids are unique.
 * @throws {RangeError} on the first invalid lot or a duplicate id.
 */
export function assertValidLots(lots: readonly TaxLot[], where: string): void {
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  const seen = new Set<string>();
  for (const lot of lots) {
    assertValidLot(lot, where);
    if (seen.has(lot.id)) throw new RangeError(`${where}: duplicate lot id ${lot.id}`);
    seen.add(lot.id);
  }
}

function isTaxDecimal(d: Decimal): boolean {
  return (d as unknown as { constructor: unknown }).constructor === TaxDecimal;
}

/**
 * The same lot with its decimals as {@link TaxDecimal} instances (64 digits), so that arithmetic started from
 * them never falls back to a caller's lower-precision Decimal configuration. Returns `lot` itself when
 * nothing needs converting.
 */
export function normalizeLot(lot: TaxLot): TaxLot {
  if (isTaxDecimal(lot.quantity) && isTaxDecimal(lot.totalCostBasis) && isTaxDecimal(lot.fxRate)) return lot;
  return {
    ...lot,
    quantity: new TaxDecimal(lot.quantity),
    totalCostBasis: new TaxDecimal(lot.totalCostBasis),
    fxRate: new TaxDecimal(lot.fxRate),
  };
}

/** Validates `lots` ({@link assertValidLots}) and returns them normalized ({@link normalizeLot}). */
export function prepareLots(lots: readonly TaxLot[], where: string): TaxLot[] {
  assertValidLots(lots, where);
  return lots.map(normalizeLot);
}
