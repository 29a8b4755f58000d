/**
 * @module market/importers/mic-defaults
 * Currency and country of the exchanges the importers know, used as defaults when a file does not say.
 */
import type { Currency } from "../../core/data/types.js";

/** Listing currency and ISO 3166 country per MIC (ISO 10383). */
export const MIC_DEFAULTS: Readonly<Record<string, { currency: Currency; country: string }>> = {
  XNYS: { currency: "USD", country: "US" },
  XNAS: { currency: "USD", country: "US" },
  ARCX: { currency: "USD", country: "US" },
  BATS: { currency: "USD", country: "US" },
  XASE: { currency: "USD", country: "US" },
  XTSE: { currency: "CAD", country: "CA" },
  XTSX: { currency: "CAD", country: "CA" },
  XLON: { currency: "GBP", country: "GB" },
  XTKS: { currency: "JPY", country: "JP" },
  XPAR: { currency: "EUR", country: "FR" },
  XETR: { currency: "EUR", country: "DE" },
  XAMS: { currency: "EUR", country: "NL" },
  XMIL: { currency: "EUR", country: "IT" },
  XMAD: { currency: "EUR", country: "ES" },
  XBRU: { currency: "EUR", country: "BE" },
};
