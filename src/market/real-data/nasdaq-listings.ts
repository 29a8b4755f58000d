/**
 * @module market/real-data/nasdaq-listings
 * The exchange of each S&P 500 ticker of the 2013-2018 price file. The source files name no exchange, so we
 * author this list of tickers whose primary listing was Nasdaq around February 2018 (from public knowledge of
 * the listings, not from a data file); every other ticker is given XNYS. It is an APPROXIMATION: a few
 * companies moved between exchanges inside 2013-2018 (e.g. PepsiCo to Nasdaq in December 2017, Cboe Global
 * Markets from Nasdaq to its own BZX exchange in 2017) and are assigned their Nasdaq listing for the whole
 * window; NYSE American / Cboe listings are not distinguished.
 */

/** Tickers of the 2018-02-08 S&P 500 constituents whose primary listing we take to be Nasdaq (XNAS). */
// biome-ignore format: a compact ticker table reads better than one ticker per line
export const SP500_2018_NASDAQ_SYMBOLS: ReadonlySet<string> = new Set([
  // Technology, internet and media
  "AAPL", "ADBE", "ADI", "ADP", "ADSK", "AKAM", "AMAT", "AMD", "AMZN", "ANSS", "ATVI", "AVGO", "CA", "CDNS", "CERN",
  "CHTR", "CMCSA", "CSCO", "CTSH", "CTXS", "DISCA", "DISCK", "DISH", "EA", "EBAY", "EXPE", "FB", "FFIV", "FISV", "FLIR",
  "FOX", "FOXA", "GOOG", "GOOGL", "INFO", "INTC", "INTU", "KLAC", "LRCX", "MCHP", "MSFT", "MU", "NFLX", "NTAP", "NVDA",
  "NWS", "NWSA", "PAYX", "PCLN", "PYPL", "QCOM", "QRVO", "SNPS", "STX", "SWKS", "SYMC", "TRIP", "TXN", "VIAB", "VRSK",
  "VRSN", "WDC", "XLNX",
  // Health care
  "ALGN", "ALXN", "AMGN", "BIIB", "CELG", "ESRX", "GILD", "HOLX", "HSIC", "IDXX", "ILMN", "INCY", "ISRG", "MYL", "PDCO",
  "REGN", "VRTX", "XRAY",
  // Consumer
  "COST", "DLTR", "GRMN", "GT", "HAS", "KHC", "MAR", "MAT", "MDLZ", "MNST", "ORLY", "PEP", "ROST", "SBUX", "TSCO",
  "ULTA", "WBA", "WYNN",
  // Financials and real estate
  "CBOE", "CINF", "CME", "EQIX", "ETFC", "FITB", "HBAN", "NAVI", "NDAQ", "NTRS", "PBCT", "SBAC", "TROW", "WLTW", "ZION",
  // Industrials and transport
  "AAL", "CHRW", "CSX", "CTAS", "EXPD", "FAST", "JBHT", "LKQ", "PCAR", "SRCL",
]);

/**
 * MIC of an S&P 500 ticker of the 2013-2018 data set: XNAS for the authored Nasdaq list, XNYS otherwise.
 * @example micForSp500Symbol("AAPL") // "XNAS"
 */
export function micForSp500Symbol(
  symbol: string,
  nasdaq: ReadonlySet<string> = SP500_2018_NASDAQ_SYMBOLS,
): "XNAS" | "XNYS" {
  return nasdaq.has(symbol) ? "XNAS" : "XNYS";
}
