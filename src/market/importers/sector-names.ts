/**
 * @module market/importers/sector-names
 * Sector names as vendors write them -> the level-1 codes of the built-in taxonomy (shared decision:
 * 10 Energy ... 60 Real Estate). Includes the pre-2018 GICS spellings: "Telecommunication Services" and
 * "Telecommunications Services" map to 50 (Communication Services), and the pre-2016 Real Estate is under
 * Financials in old files, so it needs no entry.
 */

/** Level-1 sector codes of the taxonomy. */
export const SECTOR_CODES = [10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60] as const;

const NAMES: Readonly<Record<string, number>> = {
  energy: 10,
  materials: 15,
  "basic materials": 15,
  industrials: 20,
  "consumer discretionary": 25,
  "consumer cyclical": 25,
  "consumer staples": 30,
  "consumer defensive": 30,
  "health care": 35,
  healthcare: 35,
  financials: 40,
  "financial services": 40,
  "information technology": 45,
  technology: 45,
  "communication services": 50,
  "telecommunication services": 50,
  "telecommunications services": 50,
  telecommunications: 50,
  utilities: 55,
  "real estate": 60,
};

/**
 * Sector code of a sector name (case and spacing ignored), or null when the name is not known.
 * @example sectorCodeOfName("Telecommunications Services") // 50
 */
export function sectorCodeOfName(name: string): number | null {
  return NAMES[name.trim().toLowerCase().replace(/\s+/g, " ")] ?? null;
}

/** The accepted sector names, for error messages. */
export function knownSectorNames(): string[] {
  return Object.keys(NAMES);
}
