/**
 * @module service/market-panel
 * The one store read of market history behind the optimizer's risk history, the account backtest's market and the
 * theme backtest (issue 17 item 2): closes (and volumes when asked), splits, dividends, FX (and spin-offs when
 * asked) of a set of listings over a window, built into a core {@link MarketPanel}. Point in time: every row it
 * reads is dated on or before `end`. docs/architecture.md, "The market panel".
 */
import {
  buildMarketPanel,
  type MarketPanel,
  type PanelListing,
  type SpinOff,
} from "../core/data/market-panel.js";
import type { CorporateActionRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { fxColumns } from "./fx-columns.js";

/** What {@link loadMarketPanel} reads. */
export interface MarketPanelRequest {
  /** The columns, in order: each listing and its currency (the caller has read the security master already). */
  listings: readonly PanelListing[];
  /** First and last calendar dates of the window (the panel's dates are the trading dates in it). */
  start: string;
  end: string;
  /** Read the traded volumes too (the optimizer's cost terms). @default false */
  volume?: boolean;
  /**
   * Read the ledger's spin-offs of the window and count them in the parents' total returns (the account backtest,
   * which also moves the lots). @default false
   */
  spinOffs?: boolean;
}

/**
 * The market panel of `listings` over [start, end] from the store: one price read, the splits and dividends of
 * the window, FX carried forward from the last rate on or before the first date, and with `spinOffs` the
 * ledger's spin-offs ({@link backtestSpinOffs}).
 * @example const panel = await loadMarketPanel(ctx, { listings, start: "2024-01-01", end: "2024-12-31", volume: true });
 */
export async function loadMarketPanel(
  ctx: ServiceContext,
  request: MarketPanelRequest,
): Promise<MarketPanel> {
  const market = ctx.store.market;
  const { listings, start, end } = request;
  const ids = listings.map((l) => l.themeAssetId);
  const matrix =
    request.volume === true
      ? await market.priceMatrix(start, end, ids)
      : await market.closeMatrix(start, end, ids);
  const fx = await fxColumns(
    market,
    listings.map((l) => l.currency),
    matrix.dates,
  );
  return buildMarketPanel(
    {
      dates: matrix.dates,
      listings,
      close: matrix.close,
      volume: "volume" in matrix ? (matrix.volume as Float64Array) : undefined,
      splits: await market.splits(start, end),
      dividends: await market.dividends(start, end),
      fxPerUsd: Object.fromEntries(fx),
      ...(request.spinOffs === true
        ? { spinOffs: backtestSpinOffs(await ctx.store.ledger.corporateActions({ from: start, to: end })) }
        : {}),
    },
    "loadMarketPanel",
  );
}

/**
 * The store's spin-off actions as the panel and the backtest apply them: the announced basis fraction, else the FMV
 * fraction ratio x childPrice / (parentPrice + ratio x childPrice); the child's price (when given) values a child
 * without a close on the date (docs/backtests.md, "Spin-offs").
 */
export function backtestSpinOffs(actions: readonly CorporateActionRecord[]): SpinOff[] {
  const out: SpinOff[] = [];
  for (const a of actions) {
    if (a.kind !== "spin_off") continue;
    const p = a.params as {
      childAssetId: string;
      distributionRatio: string;
      basisFraction?: string;
      parentPrice?: string;
      childPrice?: string;
    };
    const ratio = Number(p.distributionRatio);
    const childPrice = p.childPrice === undefined ? undefined : Number(p.childPrice);
    const fraction =
      p.basisFraction !== undefined
        ? Number(p.basisFraction)
        : (ratio * childPrice!) / (Number(p.parentPrice) + ratio * childPrice!);
    out.push({
      id: a.id,
      themeAssetId: a.themeAssetId,
      childAssetId: p.childAssetId,
      date: a.exDate,
      distributionRatio: ratio,
      basisFraction: fraction,
      ...(childPrice === undefined ? {} : { childPrice }),
    });
  }
  return out;
}
