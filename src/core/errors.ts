/**
 * @module core/errors
 * One error hierarchy for the whole library (modelled on cvxportfolio's `errors.py`).
 * Every edge (HTTP, CLI) maps these classes to a status code / exit code in one place.
 * Messages state what failed, where (asset, date, field) and, when possible, a fix.
 */

/** A field-level problem, as carried by {@link ValidationError}. `path` uses dots and brackets: `orders[2].amount`. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** Base class of every error lotwise throws on purpose. `code` is the stable machine-readable name. */
export class PortfolioError extends Error {
  readonly code: string;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options?.code ?? "portfolio_error";
  }
}

/** Bad or missing market data. */
export class DataError extends PortfolioError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, { code: "data_error", ...options });
  }
}

/** A price needed for a computation is missing (asset, date). */
export class MissingPriceError extends DataError {
  readonly themeAssetId: string;
  readonly date: string;
  constructor(themeAssetId: string, date: string, hint?: string) {
    super(
      `No price for ${themeAssetId} on or before ${date}.${hint ? ` ${hint}` : " Import prices for it (lotwise market import) or remove it."}`,
      { code: "missing_price" },
    );
    this.themeAssetId = themeAssetId;
    this.date = date;
  }
}

/** A NaN or infinite number reached a computation that needs finite numbers. */
export class NonFiniteError extends DataError {
  constructor(message: string) {
    super(message, { code: "non_finite" });
  }
}

/** The optimizer could not produce a result. */
export class OptimizationError extends PortfolioError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, { code: "optimization_error", ...options });
  }
}

/** The constraints admit no solution; `diagnosis` names the conflicting constraints. */
export class InfeasibleError extends OptimizationError {
  readonly diagnosis: string[];
  constructor(message: string, diagnosis: string[] = []) {
    super(message, { code: "infeasible" });
    this.diagnosis = diagnosis;
  }
}

/** The objective is unbounded below over the feasible set. */
export class UnboundedError extends OptimizationError {
  constructor(message: string) {
    super(message, { code: "unbounded" });
  }
}

/** The solver failed for a numerical reason (iteration limit, breakdown). */
export class SolverError extends OptimizationError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: "solver_error", ...options });
  }
}

/** A tax-lot operation is impossible (e.g. selling more than is held). */
export class TaxLotError extends PortfolioError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, { code: "tax_lot_error", ...options });
  }
}

/** A sell asks for more shares than the lots hold. */
export class InsufficientLotsError extends TaxLotError {
  constructor(themeAssetId: string, requested: string, available: string) {
    super(`Cannot sell ${requested} shares of ${themeAssetId}: the account holds ${available}.`, {
      code: "insufficient_lots",
    });
  }
}

/** Input failed validation. `issues` carries one entry per offending field. */
export class ValidationError extends PortfolioError {
  readonly issues: FieldIssue[];
  constructor(message: string, issues: FieldIssue[] = [], code = "validation_error") {
    super(message, { code });
    this.issues = issues;
  }
}

/** The addressed resource does not exist (or belongs to another organization, which looks the same). */
export class NotFoundError extends PortfolioError {
  constructor(message: string, code = "not_found") {
    super(message, { code });
  }
}

/** The request conflicts with the current state (duplicate, archived sleeve, job already finished...). */
export class ConflictError extends PortfolioError {
  constructor(message: string, code = "conflict") {
    super(message, { code });
  }
}

/** Missing, unknown or revoked API key. */
export class AuthenticationError extends PortfolioError {
  constructor(message = "A valid X-Api-Key header is required.") {
    super(message, { code: "unauthorized" });
  }
}

/** A store file written by a newer lotwise, or otherwise unusable. */
export class StoreVersionError extends PortfolioError {
  constructor(message: string) {
    super(message, { code: "store_version" });
  }
}

/**
 * A limit on how much one caller may ask of the service was reached: too many queued jobs for an organization
 * (`too_many_queued_jobs`) or too many requests for an API key (`rate_limited`). `retryAfterSeconds`, when known,
 * says when asking again can succeed (HTTP answers 429 with `Retry-After`).
 */
export class TooManyRequestsError extends PortfolioError {
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, code = "too_many_requests", retryAfterSeconds?: number) {
    super(message, { code });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The store is locked by another writer (e.g. a CLI import on the same file) and stayed locked for longer than
 * the caller may wait. Nothing was written; the same request can be sent again later.
 */
export class StoreBusyError extends PortfolioError {
  /** Seconds after which a retry is likely to succeed (the HTTP `Retry-After`). */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 1) {
    super(message, { code: "store_busy" });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
