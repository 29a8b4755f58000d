/**
 * @module market/synthetic/sector-profiles
 * Per-sector parameters of the synthetic market: how many names a sector gets (US and Canada), the typical market
 * beta, sector-factor volatility, idiosyncratic volatility, net margin, sales growth, return on equity, dividend
 * habits and exchange. The values are rounded, stylized magnitudes of the kind reported for US and Canadian
 * equities over the last decades (high-beta technology and discretionary, low-beta utilities and staples,
 * resource-heavy Canada); they are not estimates from a particular data set.
 */

/** Parameters of one sector. Fractions are annual and arithmetic unless stated. */
export interface SectorProfile {
  /** Sector code of the taxonomy. */
  sector: number;
  /** Relative number of US listings. */
  weightUs: number;
  /** Relative number of Canadian listings. */
  weightCa: number;
  /** Mean market beta of the sector's names. */
  beta: number;
  /** Annualized volatility of the sector factor. */
  sectorVolatility: number;
  /** Median annualized idiosyncratic volatility. */
  idioVolatility: number;
  /** Long-run net margin (net income / sales). */
  netMargin: number;
  /** Long-run sales growth. */
  growth: number;
  /** Long-run return on equity. */
  roe: number;
  /** Probability that a name pays a dividend, relative to the market-wide payer share (1 = unchanged). */
  payerTilt: number;
  /** Median dividend yield of the payers. */
  dividendYield: number;
  /** Fraction of US listings on Nasdaq (the rest on NYSE). */
  nasdaqShare: number;
}

// biome-ignore format: a table reads best as one row per sector
export const SECTOR_PROFILES: readonly SectorProfile[] = Object.freeze([
  { sector: 10, weightUs: 5, weightCa: 18, beta: 1.0, sectorVolatility: 0.2, idioVolatility: 0.24, netMargin: 0.08, growth: 0.03, roe: 0.11, payerTilt: 1.15, dividendYield: 0.035, nasdaqShare: 0.2 },
  { sector: 15, weightUs: 5, weightCa: 18, beta: 1.05, sectorVolatility: 0.12, idioVolatility: 0.23, netMargin: 0.08, growth: 0.03, roe: 0.11, payerTilt: 1.05, dividendYield: 0.025, nasdaqShare: 0.15 },
  { sector: 20, weightUs: 15, weightCa: 10, beta: 1.05, sectorVolatility: 0.08, idioVolatility: 0.2, netMargin: 0.08, growth: 0.05, roe: 0.15, payerTilt: 1.05, dividendYield: 0.017, nasdaqShare: 0.3 },
  { sector: 25, weightUs: 12, weightCa: 5, beta: 1.15, sectorVolatility: 0.09, idioVolatility: 0.25, netMargin: 0.06, growth: 0.07, roe: 0.16, payerTilt: 0.8, dividendYield: 0.016, nasdaqShare: 0.45 },
  { sector: 30, weightUs: 6, weightCa: 5, beta: 0.6, sectorVolatility: 0.07, idioVolatility: 0.15, netMargin: 0.06, growth: 0.03, roe: 0.18, payerTilt: 1.3, dividendYield: 0.027, nasdaqShare: 0.25 },
  { sector: 35, weightUs: 13, weightCa: 3, beta: 0.85, sectorVolatility: 0.09, idioVolatility: 0.28, netMargin: 0.1, growth: 0.07, roe: 0.14, payerTilt: 0.7, dividendYield: 0.016, nasdaqShare: 0.6 },
  { sector: 40, weightUs: 14, weightCa: 22, beta: 1.05, sectorVolatility: 0.1, idioVolatility: 0.16, netMargin: 0.18, growth: 0.05, roe: 0.11, payerTilt: 1.25, dividendYield: 0.03, nasdaqShare: 0.3 },
  { sector: 45, weightUs: 15, weightCa: 6, beta: 1.25, sectorVolatility: 0.11, idioVolatility: 0.26, netMargin: 0.15, growth: 0.12, roe: 0.2, payerTilt: 0.6, dividendYield: 0.011, nasdaqShare: 0.75 },
  { sector: 50, weightUs: 5, weightCa: 4, beta: 1.0, sectorVolatility: 0.08, idioVolatility: 0.23, netMargin: 0.12, growth: 0.06, roe: 0.13, payerTilt: 0.8, dividendYield: 0.022, nasdaqShare: 0.6 },
  { sector: 55, weightUs: 5, weightCa: 6, beta: 0.5, sectorVolatility: 0.08, idioVolatility: 0.12, netMargin: 0.11, growth: 0.03, roe: 0.09, payerTilt: 1.5, dividendYield: 0.037, nasdaqShare: 0.1 },
  { sector: 60, weightUs: 5, weightCa: 3, beta: 0.85, sectorVolatility: 0.09, idioVolatility: 0.15, netMargin: 0.25, growth: 0.03, roe: 0.07, payerTilt: 1.5, dividendYield: 0.04, nasdaqShare: 0.15 },
]);

/** Company-name nouns per industry group (the first four digits of the code). */
export const GROUP_NOUNS: Readonly<Record<number, readonly string[]>> = Object.freeze({
  1010: ["Drilling", "Energy Services", "Oilfield Services", "Well Services"],
  1020: ["Energy", "Petroleum", "Resources", "Oil & Gas", "Midstream", "Exploration"],
  1510: ["Chemical", "Chemicals", "Materials", "Specialty Products"],
  1520: ["Mining", "Metals", "Gold", "Resources", "Minerals", "Steel"],
  1530: ["Packaging", "Paper", "Forest Products", "Materials", "Containers"],
  2010: ["Industries", "Aerospace", "Systems", "Manufacturing", "Technologies", "Engineering", "Machinery"],
  2020: ["Services", "Solutions", "Partners", "Analytics"],
  2030: ["Logistics", "Transport", "Airlines", "Freight", "Shipping", "Rail"],
  2510: ["Motors", "Automotive", "Auto Parts", "Mobility"],
  2520: ["Homes", "Brands", "Apparel", "Furnishings", "Outfitters"],
  2530: ["Resorts", "Hospitality", "Restaurants", "Entertainment", "Education"],
  2540: ["Stores", "Retail", "Marketplace", "Outlets", "Commerce"],
  3010: ["Markets", "Foods", "Pharmacy", "Grocers"],
  3020: ["Foods", "Beverage", "Brewing", "Farms", "Brands"],
  3030: ["Consumer Products", "Brands", "Personal Care"],
  3510: ["Medical", "Health", "Surgical", "Diagnostics", "Healthcare"],
  3520: ["Therapeutics", "Pharmaceuticals", "Biosciences", "Bio", "Life Sciences", "Genomics"],
  4010: ["Bancorp", "Financial", "Bank", "Bancshares"],
  4020: ["Capital", "Financial", "Payments", "Asset Management", "Credit"],
  4030: ["Insurance", "Assurance", "Re", "Mutual"],
  4510: ["Software", "Systems", "Technologies", "Digital", "Cloud", "Data"],
  4520: ["Devices", "Electronics", "Instruments", "Networks", "Technologies"],
  4530: ["Semiconductor", "Micro", "Silicon", "Microsystems"],
  5010: ["Communications", "Telecom", "Wireless", "Networks"],
  5020: ["Media", "Entertainment", "Interactive", "Studios", "Games"],
  5510: ["Energy", "Power", "Utilities", "Electric", "Water", "Gas"],
  6010: ["Realty Trust", "Properties", "REIT", "Real Estate Trust"],
  6020: ["Realty", "Properties", "Land", "Development"],
});

/**
 * Plausible 4-digit SIC codes per industry (6-digit code) of the taxonomy, for US listings; the generator picks
 * one per name. Canadian listings get null (they do not file with the SEC, which assigns SIC codes).
 */
export const INDUSTRY_SIC_CODES: Readonly<Record<number, readonly number[]>> = Object.freeze({
  101010: [1381, 1389, 3533],
  102010: [2911],
  102020: [1311],
  102030: [2911, 5171],
  102040: [4922, 4612],
  102050: [1221, 1094, 2869],
  151010: [2821, 2810, 2860],
  151020: [2890, 2851],
  151030: [2870],
  152010: [3312],
  152020: [3334, 1000],
  152030: [1040],
  153010: [3241],
  153020: [3411, 2650],
  153030: [2421, 2621],
  201010: [3721, 3812],
  201020: [3585, 1600],
  201030: [3621, 3612],
  201040: [3600],
  201050: [3531, 3560, 3711],
  201060: [5084, 7359],
  202010: [4953, 7340, 2750],
  202020: [7363, 8742, 7320],
  203010: [4513, 4731],
  203020: [4512],
  203030: [4412, 4581],
  203040: [4011, 4213, 4100],
  251010: [3714, 3011],
  251020: [3711, 3751],
  252010: [1531, 2510, 3630, 3651],
  252020: [3944, 3949],
  252030: [2300, 3021, 3911],
  253010: [7011, 5812, 7990],
  253020: [8200, 7200],
  254010: [5311, 5961],
  254020: [5651, 5211, 5500, 5731, 5990, 5000],
  301010: [5411, 5912, 5331, 5141],
  302010: [2082, 2085, 2086],
  302020: [2000, 2011, 100],
  302030: [2111, 2833],
  303010: [2840, 2844],
  351010: [3841, 3845, 3842],
  351020: [6324, 8062, 5122, 8071],
  351030: [7374],
  352010: [2836],
  352020: [2834],
  352030: [3826, 8731],
  401010: [6021, 6022, 6035],
  402010: [6770, 6172, 6798],
  402020: [7389, 6099],
  402030: [6141],
  402040: [6282, 6211, 6200],
  403010: [6411, 6311, 6331, 6399],
  451010: [7371, 7374],
  451020: [7372],
  452010: [3576, 3663],
  452020: [3571, 3572],
  452030: [3825, 3670, 3672, 5045],
  453010: [3674],
  453020: [3559],
  501010: [4813],
  501020: [4812],
  502010: [7311, 4833, 4841, 2711],
  502020: [7812, 7372],
  502030: [7370],
  551010: [4911],
  551020: [4924],
  551030: [4931],
  551040: [4941],
  551050: [4991],
  601010: [6798],
  601020: [6798],
  601030: [6798],
  601040: [6798],
  601050: [6798],
  602010: [6500, 6510, 6531],
});
