/**
 * @module service/ledger
 * The account ledger's operations over the store (docs/ledger.md, "Operations"): a stored proposal applied as
 * executed (every order at the proposal's prices, or the broker's fills), trades recorded through the API, the
 * executions listed, and the realized-gains ledger of an account or a client for a tax year (rows, totals,
 * Schedule D, the Form 8949-style CSV). Every application is ONE store transaction: the book is read, the core's
 * `applyExecutions` runs (household wash sales included: the client's other accounts' recent purchases and loss
 * sales are passed in and what it changes there is written back), and `ledger.applyBatch` writes the result. A
 * refused batch writes nothing.
 */
import type { Decimal } from "decimal.js";
import type {
  ExecutionList,
  ExecutionListQuery,
  ExecutionResult,
  ProposalExecutionRequest,
  ProposalResponse,
  RealizedLedger,
  RealizedQuery,
  RealizedRowWire,
  RealizedTotalsWire,
  TradesRequest,
} from "../contract/index.js";
import { formatDecimal, NUMERIC_STRING_WIDTH } from "../contract/index.js";
import type { Currency } from "../core/data/types.js";
import { addDays } from "../core/dates.js";
import { ConflictError, type FieldIssue, ValidationError } from "../core/errors.js";
import {
  applyExecutions,
  type Execution,
  executionsFromProposal,
  form8949Csv,
  form8949Gain,
  type LedgerBook,
  type LedgerEntry,
  type LedgerOptions,
  type OrderFill,
  type ProposalOrderLike,
  type RealizedRow,
  realizedRows,
  scheduleD,
  type TermTotals,
  yearTotals,
} from "../core/ledger/index.js";
import { DEFAULT_QUANTITY_DECIMALS } from "../core/proposal/index.js";
import {
  LOT_SELECTION_POLICIES,
  type LotSelectionPolicy,
  TaxDecimal,
  type TaxLot,
} from "../core/tax/index.js";
import {
  type AccountRecord,
  DecimalTexts,
  type ExecutionSource,
  entryFromRecord,
  executionInput,
  type HouseholdUpdate,
  type LedgerBatch,
  type LotwiseStore,
  ledgerLotChanges,
  ledgerLotInput,
  type RealizedLotInput,
  realizedInput,
  shortLotFromRecord,
  taxLotFromRecord,
} from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { currencyMismatchMessage } from "./lot-currency.js";
import { accountLots } from "./proposals.js";
import { resolveTickersAtOnce } from "./tickers.js";

/** Calendar days around a batch read for wash sales (the rule's 30 days, with a day of margin). */
const WASH_WINDOW_DAYS = 31;

/** Where the executions of one application come from (recorded with each execution). */
export interface ExecutionOrigin {
  source: ExecutionSource;
  proposalUuid?: string;
  /** Order index of an execution of a proposal. */
  orderIndex?: (e: Execution) => number | null;
}

/**
 * The account's lot method for sells that name no lots: `metadata.lot_method` of the account when it is one of the
 * tax engine's policies (FIFO, LIFO, HIFO, TAX_OPTIMAL), else TAX_OPTIMAL.
 */
export function accountLotMethod(account: AccountRecord): LotSelectionPolicy {
  const m = (account.metadata as { lot_method?: unknown } | null)?.lot_method;
  return typeof m === "string" && (LOT_SELECTION_POLICIES as readonly string[]).includes(m.toUpperCase())
    ? (m.toUpperCase() as LotSelectionPolicy)
    : "TAX_OPTIMAL";
}

const ZERO = new TaxDecimal(0);

/**
 * Apply executions to an account, in one store transaction (the caller's, when inside one): refuse ids already
 * applied (409 `execution_already_applied`, nothing applied), read the book and the household, run the core,
 * write the batch. `issuePath` renames the core's `executions[i].field` paths in the caller's terms.
 */
export async function applyAccountExecutions(
  ctx: ServiceContext,
  account: AccountRecord,
  given: readonly Execution[],
  origin: ExecutionOrigin,
  issuePath: (path: string) => string = (p) => p,
): Promise<ExecutionResult> {
  if (given.length === 0)
    throw new ValidationError("Nothing to apply: the batch has no executions.", [
      { path: "executions", message: "no execution" },
    ]);
  return ctx.store.transaction(async (tx) => {
    const executions = await withMarketFxRates(tx, given, issuePath);
    const accountUuid = account.uuid;
    const wanted = [...new Set(executions.map((e) => e.id))];
    const applied = new Set(await tx.ledger.appliedExecutionIds(accountUuid, wanted));
    const already = wanted.filter((id) => applied.has(id));
    if (already.length > 0) throw alreadyApplied(already, wanted.length, accountUuid, executions, origin);
    let first = executions[0]!.tradeDate;
    let last = first;
    for (const e of executions) {
      if (e.tradeDate < first) first = e.tradeDate;
      if (e.tradeDate > last) last = e.tradeDate;
    }
    const validDates = /^\d{4}-\d{2}-\d{2}$/.test(first) && /^\d{4}-\d{2}-\d{2}$/.test(last);
    const from = validDates ? addDays(first, -WASH_WINDOW_DAYS) : "0000-01-01";
    const to = validDates ? addDays(last, WASH_WINDOW_DAYS) : "9999-12-31";
    const book = await readBook(tx, ctx, account, from, to);
    const currencyIssues = await openingCurrencyIssues(tx, executions);
    let result: ReturnType<typeof applyExecutions>;
    try {
      if (currencyIssues.length > 0)
        throw new ValidationError("lots in another currency than their listing's", currencyIssues);
      result = applyExecutions(book.book, executions, {
        lotMethod: accountLotMethod(account),
      } as LedgerOptions);
    } catch (err) {
      if (err instanceof ValidationError) {
        throw notApplied(
          err.issues.map((i) => ({ ...i, path: issuePath(i.path) })),
          err.code,
        );
      }
      throw err;
    }
    const household = householdUpdates(book, result);
    // One DecimalTexts for the batch's rows: they share many decimal objects.
    const texts = new DecimalTexts();
    const batch: LedgerBatch = {
      executions: executions.map((e) =>
        executionInput(e, {
          source: origin.source,
          proposalUuid: origin.proposalUuid ?? null,
          orderIndex: origin.orderIndex?.(e) ?? null,
        }),
      ),
      realized: result.entries.map((e, i) => realizedInput(e, result.rows[i], texts)),
      // Only the lots the batch changed: the store neither reads nor converts the account's other lots.
      lotChanges: ledgerLotChanges(book.book, result.book),
      cashDelta: result.book.cashUsd.minus(book.book.cashUsd).toFixed(),
      ...(household.inPlace.length > 0 ? { household: household.inPlace } : {}),
    };
    const written = await tx.ledger.applyBatch(accountUuid, batch);
    // Household lots the wash-sale rule carved (a replacement lot partly matched): the other account's lots are
    // rewritten whole, in the same transaction.
    for (const w of household.rewrite)
      await tx.ledger.applyBatch(w.accountUuid, {
        executions: [],
        realized: w.realized,
        lotChanges: ledgerLotChanges({ lots: w.lotsBefore }, { lots: w.lots }),
        cashDelta: "0",
      });
    // The rows' decimal columns were converted for the store (the same toFixed texts): reused.
    const rows = result.rows.map((r, i) => rowToWire(r, accountUuid, batch.realized[i]));
    let total = ZERO;
    for (const r of result.rows) total = total.plus(r.gain);
    const warnings = await shortSaleWarnings(tx, account, executions);
    return {
      account_uuid: accountUuid,
      execution_ids: executions.map((e) => e.id),
      realized: rows,
      realized_total_usd: total.toFixed(),
      wash_sales: result.washSales.length,
      household_accounts_updated: [
        ...new Set([
          ...household.inPlace.map((h) => h.accountUuid),
          ...household.rewrite.map((w) => w.accountUuid),
        ]),
      ],
      // As the account read shape gives cash (10 decimals); the stored cash keeps every digit.
      cash_delta_usd: cashText(batch.cashDelta, "cash_delta_usd"),
      cash_value_usd: cashText(written.cashValueUsd, "cash_value_usd"),
      lots: result.book.lots.length,
      short_lots: (result.book.shortLots ?? []).length,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  });
}

/**
 * A short sale is recorded as the broker executed it, but an account whose configuration is LONG_ONLY (or that has
 * none: the default) is not meant to hold short lots; the result says so rather than refusing what happened.
 */
async function shortSaleWarnings(
  tx: LotwiseStore,
  account: AccountRecord,
  executions: readonly Execution[],
): Promise<string[]> {
  const shorted = [...new Set(executions.filter((e) => e.kind === "short_order").map((e) => e.themeAssetId))];
  if (shorted.length === 0) return [];
  const config =
    account.portfolioConfigUuid === null
      ? undefined
      : await tx.portfolioConfigs
          .get(account.organizationUuid, account.portfolioConfigUuid)
          .catch(() => undefined);
  const mode = (config?.document.optimization_mode as string | undefined) ?? "LONG_ONLY";
  if (mode !== "LONG_ONLY") return [];
  const whose =
    config === undefined
      ? `account ${account.uuid} has no configuration (so LONG_ONLY)`
      : `account ${account.uuid}'s configuration ${config.name} is LONG_ONLY`;
  return [
    `Short sale of ${shorted.join(", ")} recorded, but ${whose}: short lots belong in a LONG_SHORT or LONG_BIASED account (lotwise configs update <config> --set optimization_mode=LONG_SHORT).`,
  ];
}

/**
 * The refusal of a batch some of whose executions were applied before. For a proposal it speaks of the proposal
 * and its orders (its execution ids are internal: `<proposal>:<order>:<fill>`); otherwise it lists the ids given.
 */
function alreadyApplied(
  already: readonly string[],
  wanted: number,
  accountUuid: string,
  executions: readonly Execution[],
  origin: ExecutionOrigin,
): ConflictError {
  const code = "execution_already_applied";
  if (origin.source === "proposal" && origin.proposalUuid !== undefined) {
    const ids = new Set(already);
    const orders = [
      ...new Set(executions.filter((e) => ids.has(e.id)).map((e) => origin.orderIndex?.(e) ?? null)),
    ].filter((o): o is number => o !== null);
    const which =
      already.length === wanted
        ? "was already applied"
        : `has ${already.length} of these ${wanted} executions already applied`;
    const list =
      orders.length === 0
        ? ""
        : ` (order${orders.length === 1 ? "" : "s"} ${orders.slice(0, 10).join(", ")}${orders.length > 10 ? ` and ${orders.length - 10} more` : ""})`;
    return new ConflictError(
      `Proposal ${origin.proposalUuid} ${which} to account ${accountUuid}${list}; nothing was applied. Its executions are listed by \`lotwise trades list\` (GET .../executions/). To record further fills of its orders, give each a fill_id (the broker's id of the fill).`,
      code,
    );
  }
  return new ConflictError(
    `Execution(s) ${already.slice(0, 10).join(", ")}${already.length > 10 ? ` and ${already.length - 10} more` : ""} already applied to account ${accountUuid}; nothing was applied.`,
    code,
  );
}

/**
 * The executions with the FX rate of every non-USD one that gives none: the market's rate of its currency per USD
 * on its trade date, or the latest before it (as a proposal's orders are priced). Without a rate in the market data
 * the batch is refused, naming each such execution's `fxRate`: a rate of 1 would book a CAD cost as USD.
 */
async function withMarketFxRates(
  tx: LotwiseStore,
  executions: readonly Execution[],
  issuePath: (path: string) => string,
): Promise<readonly Execution[]> {
  const issues: FieldIssue[] = [];
  const rates = new Map<string, string | null>();
  const out: Execution[] = [];
  for (const [i, e] of executions.entries()) {
    const currency = e.currency ?? "USD";
    if (currency === "USD" || e.fxRate !== undefined || typeof e.tradeDate !== "string") {
      out.push(e);
      continue;
    }
    const key = `${currency}|${e.tradeDate}`;
    if (!rates.has(key)) {
      const found = await tx.market.fxRateAsOf(currency, e.tradeDate);
      rates.set(key, found === undefined ? null : String(found.perUsd));
    }
    const rate = rates.get(key)!;
    if (rate === null)
      issues.push({
        path: issuePath(`executions[${i}].fxRate`),
        message: `the market data has no ${currency} per USD rate on or before ${e.tradeDate}: give the trade's fx_rate`,
      });
    out.push(rate === null ? e : { ...e, fxRate: rate });
  }
  if (issues.length > 0) throw notApplied(issues);
  return out;
}

/** The refusal of a whole batch: its first five issues in the message, every one in the details. */
function notApplied(issues: FieldIssue[], code?: string): ValidationError {
  return new ValidationError(
    `The executions cannot be applied (nothing was applied): ${issues
      .slice(0, 5)
      .map((x) => `${x.path}: ${x.message}`)
      .join("; ")}${issues.length > 5 ? `; and ${issues.length - 5} more` : ""}`,
    issues,
    code,
  );
}

const cashText = (v: string, field: string) =>
  formatDecimal(v, NUMERIC_STRING_WIDTH.integerDigits, NUMERIC_STRING_WIDTH.fractionDigits, field);

/**
 * Buys and short sales whose currency is not their listing's (docs/ledger.md, "Lots and their listing's currency"):
 * the lot they would open could never be priced, so they are refused like any bad field (`executions[i].currency`).
 * Listings not in the security master are left to the other checks.
 */
async function openingCurrencyIssues(
  tx: LotwiseStore,
  executions: readonly Execution[],
): Promise<FieldIssue[]> {
  const opening = executions.filter((e) => e.kind === "buy" || e.kind === "short_order");
  if (opening.length === 0) return [];
  const listings = await tx.market.securitiesByIds([...new Set(opening.map((e) => e.themeAssetId))]);
  const issues: FieldIssue[] = [];
  executions.forEach((e, i) => {
    if (e.kind !== "buy" && e.kind !== "short_order") return;
    const listing = listings.get(e.themeAssetId)?.currency;
    const given = e.currency ?? "USD";
    if (listing !== undefined && given !== listing)
      issues.push({
        path: `executions[${i}].currency`,
        message: currencyMismatchMessage(
          `the ${e.kind === "buy" ? "buy" : "short sale"} of ${e.themeAssetId}`,
          "currency",
          e.themeAssetId,
          given,
          listing,
        ),
      });
  });
  return issues;
}

interface ReadBook {
  book: LedgerBook;
  /** Household lots passed in, by id, and the account of each household entry passed in. */
  householdLots: Map<string, TaxLot>;
  entryAccount: Map<string, string>;
}

async function readBook(
  tx: LotwiseStore,
  ctx: ServiceContext,
  account: AccountRecord,
  from: string,
  to: string,
): Promise<ReadBook> {
  const lots = await accountLots(ctx, account.uuid);
  const shortLots = (await tx.ledger.shortLots(account.uuid)).map(shortLotFromRecord);
  const realized = (await tx.ledger.realized({ accountUuid: account.uuid }, { from, to: "9999-12-31" })).map(
    entryFromRecord,
  );
  const appliedActionIds = (await tx.ledger.appliedActions(account.uuid)).map((a) => a.actionId);
  // The other accounts' only: the account's own lots and rows are read above.
  const activity = await tx.ledger.householdActivity(account.clientUuid, from, to, account.uuid);
  const hLots = activity.lots.map(taxLotFromRecord);
  const hSales = activity.lossSales;
  const entryAccount = new Map(hSales.map((r) => [r.entryId, r.accountUuid]));
  const hEntries: LedgerEntry[] = hSales.map(entryFromRecord);
  return {
    book: {
      accountId: account.uuid,
      cashUsd: new TaxDecimal(account.cashValueUsd),
      lots,
      shortLots,
      realized,
      appliedActionIds,
      household: { lots: hLots, realized: hEntries },
    },
    householdLots: new Map(hLots.map((l) => [l.id, l])),
    entryAccount,
  };
}

/** The household changes of a result: updates in place, and accounts whose lots a carve split (rewritten whole). */
function householdUpdates(
  read: ReadBook,
  result: ReturnType<typeof applyExecutions>,
): {
  inPlace: HouseholdUpdate[];
  rewrite: {
    accountUuid: string;
    lots: TaxLot[];
    lotsBefore: TaxLot[];
    realized: ReturnType<typeof realizedInput>[];
  }[];
} {
  const byAccount = new Map<string, { lots: TaxLot[]; realized: LedgerEntry[]; carved: boolean }>();
  const slot = (a: string) => {
    let s = byAccount.get(a);
    if (s === undefined) {
      s = { lots: [], realized: [], carved: false };
      byAccount.set(a, s);
    }
    return s;
  };
  const inputByAccount = new Map<string, TaxLot[]>();
  for (const l of read.householdLots.values()) {
    const list = inputByAccount.get(l.accountId!);
    if (list === undefined) inputByAccount.set(l.accountId!, [l]);
    else list.push(l);
  }
  for (const l of result.book.household?.lots ?? []) {
    const before = read.householdLots.get(l.id);
    if (before !== undefined && sameLot(before, l)) continue;
    const s = slot(l.accountId!);
    s.lots.push(l);
    if (before === undefined) s.carved = true;
  }
  for (const e of result.householdEntries) {
    const a = read.entryAccount.get(e.id) ?? e.record.accountId;
    if (a !== undefined) slot(a).realized.push(e);
  }
  const inPlace: HouseholdUpdate[] = [];
  const rewrite: {
    accountUuid: string;
    lots: TaxLot[];
    lotsBefore: TaxLot[];
    realized: ReturnType<typeof realizedInput>[];
  }[] = [];
  for (const [accountUuid, s] of byAccount) {
    const realized = s.realized.map((e) => realizedInput(e));
    if (!s.carved) inPlace.push({ accountUuid, realized, lotsChanged: s.lots.map(ledgerLotInput) });
    else {
      // Every household lot of that account passed in is replaced by what the core returned for it.
      const after = (result.book.household?.lots ?? []).filter((l) => l.accountId === accountUuid);
      rewrite.push({
        accountUuid,
        lots: after,
        lotsBefore: inputByAccount.get(accountUuid) ?? [],
        realized,
      });
    }
  }
  return { inPlace, rewrite };
}

function sameLot(a: TaxLot, b: TaxLot): boolean {
  return (
    a === b ||
    (a.quantity.eq(b.quantity) &&
      a.totalCostBasis.eq(b.totalCostBasis) &&
      a.tradeDate === b.tradeDate &&
      a.holdingPeriodStart === b.holdingPeriodStart &&
      a.washSaleDate === b.washSaleDate &&
      a.lastSoldForLossDate === b.lastSoldForLossDate &&
      a.themeAssetId === b.themeAssetId)
  );
}

/** The decimal columns of a row as `toFixed()` texts (a {@link RealizedLotInput} of the same row has them). */
type RowTexts = Pick<RealizedLotInput, "quantity" | "proceeds" | "costBasis" | "adjustment" | "gain">;

/**
 * A core realized row on the wire. `texts`: the row's decimals already converted (`toFixed()` of `r.quantity`,
 * `r.proceeds`, `r.costBasis`, `r.adjustment`, `r.gain`, as {@link realizedInput} converts them for the store).
 */
export function rowToWire(r: RealizedRow, accountUuid: string | null, texts?: RowTexts): RealizedRowWire {
  const t: RowTexts = texts ?? {
    quantity: r.quantity.toFixed(),
    proceeds: r.proceeds.toFixed(),
    costBasis: r.costBasis.toFixed(),
    adjustment: r.adjustment.toFixed(),
    gain: r.gain.toFixed(),
  };
  return {
    entry_id: r.entryId,
    source_id: r.sourceId,
    account_uuid: r.accountId ?? accountUuid,
    lot_id: r.lotId,
    ticker: r.themeAssetId,
    side: r.side,
    description: r.description,
    quantity: t.quantity,
    date_acquired: r.dateAcquired,
    date_sold: r.dateSold,
    proceeds: t.proceeds,
    cost_basis: t.costBasis,
    adjustment_code: r.adjustmentCode,
    adjustment: t.adjustment,
    gain: t.gain,
    form_8949_gain: form8949Gain(r).toFixed(2),
    term: r.term,
  };
}

const CAMEL_TO_SNAKE: Record<string, string> = {
  themeAssetId: "ticker",
  tradeDate: "trade_date",
  fxRate: "fx_rate",
  lotId: "lot_id",
  kind: "side",
  id: "execution_id",
};

const snakeField = (path: string) =>
  path.replace(/\.(\w+)/g, (_m, k: string) => `.${CAMEL_TO_SNAKE[k] ?? k}`);

// ---------------------------------------------------------------------------------------------------------------
// A stored proposal applied as executed

/** The proposal's orders as the core's order shape (shares; lots named by the proposal when it names them). */
function proposalOrders(
  p: ProposalResponse,
  prices: ReadonlyMap<string, number>,
  fx: ReadonlyMap<string, Decimal>,
) {
  return p.orders.map((o, i): ProposalOrderLike => {
    const amount = new TaxDecimal(o.amount);
    let quantity: Decimal = amount.abs();
    if (o.type === "notional") {
      const price = prices.get(o.ticker);
      if (price === undefined)
        throw new ValidationError(
          `No price of ${o.ticker} on the proposal's date to size its notional order.`,
          [{ path: `orders[${i}].amount`, message: `notional order of ${o.ticker} without a price` }],
        );
      const rate = o.currency === "USD" ? new TaxDecimal(1) : (fx.get(o.currency) ?? new TaxDecimal(1));
      // Whole millionths of a share, rounded down (as proposals size shares and as dividend reinvestment buys):
      // what is left of the amount stays in cash, and the lot's quantity and the cash are finite decimals.
      quantity = quantity
        .times(rate)
        .div(price)
        .toDecimalPlaces(DEFAULT_QUANTITY_DECIMALS, TaxDecimal.ROUND_DOWN);
      if (quantity.isZero())
        throw new ValidationError(
          `The notional order of ${o.ticker} (${o.amount} ${o.currency}) buys less than one millionth of a share at ${price}.`,
          [{ path: `orders[${i}].amount`, message: "less than 0.000001 share at the close" }],
        );
    }
    const named =
      o.tax_lots !== null && o.tax_lots.length > 0 && o.tax_lots.every((l) => l.lot_id !== undefined);
    return {
      themeAssetId: o.ticker,
      currency: o.currency as Currency,
      side: amount.isNegative() ? "sell" : "buy",
      category: o.order_category ?? "long",
      quantity,
      taxLots: named ? o.tax_lots!.map((l) => ({ lotId: l.lot_id!, quantity: l.quantity })) : null,
    };
  });
}

/**
 * Apply a stored proposal as executed (extension operation `executeProposal`): every order in full at the closes of
 * the proposal's as_of_date, or the given fills (partial fills allowed). Sells relieve exactly the lots the proposal
 * named. Execution ids are `${proposal_uuid}:${order index}:${fill number}`, so applying a proposal twice is
 * refused (409 `execution_already_applied`).
 * @throws {ValidationError} a fill for an order not in the proposal, a quantity above the order, a price <= 0
 * (`fills[i].field`); nothing applied
 */
export async function executeProposal(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  proposalUuid: string,
  body: ProposalExecutionRequest = {},
): Promise<ExecutionResult> {
  return ctx.store.transaction(async (tx) => {
    const account = await tx.accounts.require(org, clientUuid, accountUuid);
    const p = (await tx.proposals.require(org, accountUuid, proposalUuid)).response as ProposalResponse;
    const asOf = p.as_of_date ?? (p.created ?? "").slice(0, 10);
    const ids = [...new Set(p.orders.map((o) => o.ticker))];
    const closes = await tx.market.latestPrices(ids, asOf);
    const prices = new Map<string, number>();
    for (const [id, c] of closes) prices.set(id, c.close);
    const fx = new Map<string, Decimal>();
    for (const o of p.orders) {
      if (o.currency === "USD" || fx.has(o.currency)) continue;
      const rate = o.fx_cost_breakdown?.fx_rate ?? (await tx.market.fxRateAsOf(o.currency, asOf))?.perUsd;
      if (rate !== undefined) fx.set(o.currency, new TaxDecimal(rate));
    }
    const orders = proposalOrders(p, prices, fx);
    const tradeDate = body.trade_date ?? asOf;
    // Fills of this proposal recorded by earlier calls: they count against their orders and lots.
    const previous = (await tx.ledger.proposalFills(accountUuid, proposalUuid)).map((e) => ({
      order: e.orderIndex,
      quantity: e.quantity,
    }));
    let executions: Execution[];
    try {
      executions = executionsFromProposal({
        proposalId: proposalUuid,
        orders,
        tradeDate,
        previous,
        prices: Object.fromEntries([...prices].map(([k, v]) => [k, String(v)])),
        fxRates: Object.fromEntries(fx) as Partial<Record<Currency, Decimal>>,
        ...(body.fills === undefined
          ? {}
          : {
              fills: body.fills.map(
                (f): OrderFill => ({
                  order: f.order,
                  quantity: f.quantity,
                  price: f.price,
                  ...(f.fees === undefined ? {} : { fees: f.fees }),
                  ...(f.fx_rate === undefined ? {} : { fxRate: f.fx_rate }),
                  ...(f.trade_date === undefined ? {} : { tradeDate: f.trade_date }),
                  ...(f.fill_id === undefined ? {} : { fillId: f.fill_id }),
                }),
              ),
            }),
      });
    } catch (err) {
      if (err instanceof ValidationError) {
        const issues = err.issues.map((i) => ({ ...i, path: snakeField(i.path) }));
        throw new ValidationError(
          `The proposal's fills cannot be applied (nothing was applied): ${issues
            .slice(0, 5)
            .map((i) => `${i.path}: ${i.message}`)
            .join("; ")}`,
          issues,
        );
      }
      throw err;
    }
    if (executions.length === 0)
      throw new ConflictError(
        `Proposal ${proposalUuid} was already executed in full in account ${accountUuid} (${previous.length} fill${previous.length === 1 ? "" : "s"}); nothing was applied. Its executions are listed by \`lotwise trades list\` (GET .../executions/).`,
        "execution_already_applied",
      );
    const orderOf = (e: Execution) => Number(e.id.slice(proposalUuid.length + 1).split(":")[0]);
    // executions[i] -> the fill (or order) it came from, in the request's terms.
    const fillIndex = new Map<number, string>();
    executions.forEach((e, i) => {
      fillIndex.set(i, body.fills === undefined ? `orders[${orderOf(e)}]` : `fills[${i}]`);
    });
    return applyAccountExecutions(
      ctx,
      account,
      executions,
      { source: "proposal", proposalUuid, orderIndex: orderOf },
      (path) =>
        snakeField(path.replace(/^executions\[(\d+)\]/, (m, i: string) => fillIndex.get(Number(i)) ?? m)),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Trades recorded through the API

/** A trade of the API or of a trade file, its ticker resolved, as a core execution of the account. */
export function tradeExecution(
  accountUuid: string,
  t: {
    executionId: string;
    side: Execution["kind"];
    themeAssetId: string;
    tradeDate: string;
    quantity: string;
    price: string;
    fees?: string | undefined;
    currency?: Currency | undefined;
    fxRate?: string | undefined;
    lots?: { lotId: string; quantity?: string | undefined }[] | undefined;
  },
): Execution {
  return {
    id: t.executionId,
    kind: t.side,
    themeAssetId: t.themeAssetId,
    tradeDate: t.tradeDate,
    quantity: t.quantity,
    price: t.price,
    ...(t.fees === undefined ? {} : { fees: t.fees }),
    ...(t.currency === undefined ? {} : { currency: t.currency }),
    ...(t.fxRate === undefined ? {} : { fxRate: t.fxRate }),
    ...(t.lots === undefined || t.lots.length === 0
      ? {}
      : {
          lots: t.lots.map((l) =>
            l.quantity === undefined ? { lotId: l.lotId } : { lotId: l.lotId, quantity: l.quantity },
          ),
        }),
    // Lot ids are unique store-wide: a lot the trade opens is named after the account and the execution id.
    ...(t.side === "buy" || t.side === "short_order" ? { lotId: `${accountUuid}:${t.executionId}` } : {}),
  };
}

/**
 * Record trades through the API (extension operation `recordTrades`): a batch of buys, sells, short sales and
 * covers with the caller's execution ids, applied whole or not at all. Sells relieve the lots they name, else the
 * account's lot method picks them ({@link accountLotMethod}).
 * @throws {ValidationError} naming `trades[i].field`; {@link ConflictError} `execution_already_applied`
 */
export async function recordTrades(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  body: TradesRequest,
): Promise<ExecutionResult> {
  const account = await ctx.store.accounts.require(org, clientUuid, accountUuid);
  const resolved = await resolveTickersAtOnce(
    ctx.store,
    body.trades.map((t) => t.ticker),
  );
  const issues: FieldIssue[] = [];
  const executions = body.trades.map((t, i) => {
    const r = resolved[i]!;
    if (!r.ok) issues.push({ path: `trades[${i}].ticker`, message: r.message });
    return tradeExecution(accountUuid, {
      executionId: t.execution_id,
      side: t.side,
      themeAssetId: r.ok ? r.security.themeAssetId : t.ticker,
      tradeDate: t.trade_date,
      quantity: t.quantity,
      price: t.price,
      fees: t.fees,
      currency: t.currency ?? (r.ok ? r.security.currency : undefined),
      fxRate: t.fx_rate,
      lots: t.lots?.map((l) => ({ lotId: l.lot_id, quantity: l.quantity })),
    });
  });
  if (issues.length > 0)
    throw new ValidationError(
      `${issues.length} trade(s) name an unknown ticker; nothing was applied.`,
      issues,
      "invalid_tickers",
    );
  return applyAccountExecutions(ctx, account, executions, { source: "api" }, (p) =>
    snakeField(p.replace(/^executions\[/, "trades[")),
  );
}

/** An account's executions (extension operation `listExecutions`), by trade date then in the order applied. */
export async function listExecutions(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  query: ExecutionListQuery = {},
): Promise<ExecutionList> {
  await ctx.store.accounts.require(org, clientUuid, accountUuid);
  const rows = await ctx.store.ledger.executions(accountUuid, {
    ...(query.from === undefined ? {} : { from: query.from }),
    ...(query.to === undefined ? {} : { to: query.to }),
  });
  return {
    account_uuid: accountUuid,
    executions: rows.map((e) => ({
      execution_id: e.executionId,
      source: e.source,
      proposal_uuid: e.proposalUuid,
      order_index: e.orderIndex,
      side: e.kind,
      ticker: e.themeAssetId,
      trade_date: e.tradeDate,
      quantity: e.quantity,
      price: e.price,
      fees: e.fees,
      currency: e.currency,
      fx_rate: e.fxRate,
      lots:
        e.lots?.map((l) =>
          l.quantity === undefined ? { lot_id: l.lotId } : { lot_id: l.lotId, quantity: l.quantity },
        ) ?? null,
      lot_id: e.lotId,
      applied_at: e.appliedAt,
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The realized-gains ledger

function termToWire(t: TermTotals) {
  return {
    proceeds: t.proceeds.toFixed(),
    cost_basis: t.costBasis.toFixed(),
    adjustments: t.adjustments.toFixed(),
    gains: t.gains.toFixed(),
    losses: t.losses.toFixed(),
    net: t.net.toFixed(),
    rows: t.rows,
  };
}

export function totalsToWire(rows: readonly RealizedRow[], year: number): RealizedTotalsWire {
  const t = yearTotals(rows, year);
  return {
    year,
    short_term: termToWire(t.shortTerm),
    long_term: termToWire(t.longTerm),
    disallowed_loss: t.disallowedLoss.toFixed(),
    net: t.net.toFixed(),
  };
}

/** The realized rows of an account or a client in a tax year (core rows, every account's own id). */
export async function realizedRowsOf(
  store: LotwiseStore,
  scope: { accountUuid: string } | { clientUuid: string },
  year: number,
): Promise<RealizedRow[]> {
  const records = await store.ledger.realized(scope, { year });
  const entries = records.map((r) => {
    const e = entryFromRecord(r);
    // Rows carry their account (entries the ledger wrote always do; older ones get it from the row).
    return e.record.accountId === undefined ? { ...e, record: { ...e.record, accountId: r.accountUuid } } : e;
  });
  return realizedRows(entries);
}

function ledgerOf(
  rows: RealizedRow[],
  year: number,
  query: RealizedQuery,
  scope: RealizedLedger["scope"],
  clientUuid: string,
  accountUuid: string | null,
): RealizedLedger {
  const reporting = query.reporting ?? "basis_reported";
  return {
    scope,
    client_uuid: clientUuid,
    account_uuid: accountUuid,
    year,
    rows: rows.map((r) => rowToWire(r, accountUuid)),
    totals: totalsToWire(rows, year),
    schedule_d: scheduleD(rows, year, reporting).map((l) => ({
      line: l.line,
      label: l.label,
      proceeds: l.proceeds.toFixed(2),
      cost_basis: l.costBasis.toFixed(2),
      adjustments: l.adjustment.toFixed(2),
      gain: l.gain.toFixed(2),
    })),
    form_8949_csv: form8949Csv(rows, year, reporting),
  };
}

/** The realized-gains ledger of an account for a tax year (extension operation `accountRealized`). */
export async function accountRealized(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  query: RealizedQuery,
): Promise<RealizedLedger> {
  await ctx.store.accounts.require(org, clientUuid, accountUuid);
  const rows = await realizedRowsOf(ctx.store, { accountUuid }, query.year);
  return ledgerOf(rows, query.year, query, "account", clientUuid, accountUuid);
}

/** The realized-gains ledger of every account of a client (household) for a tax year (`clientRealized`). */
export async function clientRealized(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  query: RealizedQuery,
): Promise<RealizedLedger> {
  await ctx.store.clients.require(org, clientUuid);
  const rows = await realizedRowsOf(ctx.store, { clientUuid }, query.year);
  return ledgerOf(rows, query.year, query, "client", clientUuid, null);
}
