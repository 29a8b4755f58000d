/**
 * @module service/short-lot-read
 * An open short lot of the ledger in the read shape of the account and of the holdings-as-of extension.
 */
import type { Decimal } from "decimal.js";
import type { ShortLotRead } from "../contract/corporate-action.js";
import type { ShortLot } from "../core/ledger/index.js";

/** A short lot in the read shape. */
export function shortLotRead(s: ShortLot): ShortLotRead {
  const t = (d: Decimal) => d.toDecimalPlaces(10).toFixed();
  return {
    lot_uuid: s.id,
    side: "short",
    theme_asset_id: s.themeAssetId,
    quantity: t(s.quantity),
    proceeds: t(s.proceeds),
    proceeds_usd: t(s.proceeds.dividedBy(s.fxRate)),
    currency: s.currency,
    fx_rate: t(s.fxRate),
    open_date: s.openDate,
  };
}
