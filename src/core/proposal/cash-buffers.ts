/**
 * @module core/proposal/cash-buffers
 * The cash a proposal keeps out of the trades (PRODUCT.md section 4): `cash_buffer_*_amount` when set,
 * else `cash_buffer_* x NAV`. The CAD buffer is a CAD amount (a fraction of NAV converted at the CAD rate);
 * the USD it reserves is `cad / fx_CAD`. Buffers are rounded UP to the cent of their currency so the cash
 * kept is never less than configured.
 *
 * ```
 * usd_buffer = ceil_cent(usd_amount ?? usd_fraction x NAV)
 * cad_buffer = ceil_cent(cad_amount ?? cad_fraction x NAV x fx_CAD)          (CAD)
 * reserved   = usd_buffer + cad_buffer / fx_CAD                               (USD)
 * investable = NAV - reserved
 * ```
 */

import type { Decimal } from "decimal.js";
import { TaxDecimal } from "../tax/index.js";
import { ceilCents } from "./rounding.js";

/** Buffer settings, already parsed (null = not set). */
export interface CashBufferSettings {
  usdFraction: Decimal | null;
  usdAmount: Decimal | null;
  cadFraction: Decimal | null;
  cadAmount: Decimal | null;
}

/** The buffers of one proposal. */
export interface CashBuffers {
  /** USD buffer; null when neither USD field is set. */
  usd: Decimal | null;
  /** CAD buffer in CAD; null when neither CAD field is set. */
  cad: Decimal | null;
  /** USD kept out of the trades: usd + cad / fx_CAD. */
  reservedUsd: Decimal;
}

const ZERO = new TaxDecimal(0);

/**
 * Computes the buffers for `navUsd`. `cadPerUsd` is needed only when a CAD buffer is set and non-zero.
 * @throws {RangeError} when a CAD buffer is non-zero and `cadPerUsd` is null.
 * @example cashBuffers({ usdFraction: new TaxDecimal("0.05"), usdAmount: null, cadFraction: null,
 *   cadAmount: null }, new TaxDecimal("10000.10"), null).usd?.toString() // "500.01"
 */
export function cashBuffers(
  settings: CashBufferSettings,
  navUsd: Decimal,
  cadPerUsd: Decimal | null,
): CashBuffers {
  const usd =
    settings.usdAmount !== null
      ? ceilCents(settings.usdAmount)
      : settings.usdFraction !== null
        ? ceilCents(settings.usdFraction.times(navUsd))
        : null;
  let cad: Decimal | null = null;
  let cadUsd = ZERO;
  if (settings.cadAmount !== null || settings.cadFraction !== null) {
    if (settings.cadAmount !== null) cad = ceilCents(settings.cadAmount);
    else if (settings.cadFraction!.isZero()) cad = ZERO;
    else {
      if (cadPerUsd === null) throw new RangeError("cashBuffers: a CAD buffer needs the CAD rate");
      cad = ceilCents(settings.cadFraction!.times(navUsd).times(cadPerUsd));
    }
    if (!cad.isZero()) {
      if (cadPerUsd === null) throw new RangeError("cashBuffers: a CAD buffer needs the CAD rate");
      cadUsd = cad.dividedBy(cadPerUsd);
    }
  }
  return { usd, cad, reservedUsd: (usd ?? ZERO).plus(cadUsd) };
}
