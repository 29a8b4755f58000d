/**
 * @module lotwise
 * Public API of the lotwise library, grouped by area. Importing this module has no side effects.
 */

// Market-data model
export {
  ASSET_TYPES,
  type AssetType,
  type CharacteristicValue,
  CURRENCIES,
  type Currency,
  type Dividend,
  type FxRate,
  type IndexInfo,
  type IndexLevel,
  type IndexWeight,
  type IndustryNode,
  type PriceBar,
  type Security,
  type Split,
} from "./core/data/types.js";
// Dates
export { addDays, addMonths, daysBetween, isIsoDate, monthEnds } from "./core/dates.js";
// Errors
export {
  AuthenticationError,
  ConflictError,
  DataError,
  type FieldIssue,
  InfeasibleError,
  InsufficientLotsError,
  MissingPriceError,
  NonFiniteError,
  NotFoundError,
  OptimizationError,
  PortfolioError,
  SolverError,
  StoreVersionError,
  TaxLotError,
  UnboundedError,
  ValidationError,
} from "./core/errors.js";
export { VERSION } from "./version.js";
