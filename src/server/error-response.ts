/**
 * @module server/error-response
 * The one place where errors become HTTP responses: each {@link PortfolioError} class maps to a status and the
 * error envelope `{"error": {"code", "message", "details"?}}`; anything else is a 500 `internal_error` whose
 * message says nothing about the internals (the stack goes to the server's log only). A store locked by another
 * writer (SQLite's busy error, or a {@link StoreBusyError}) is a 503 `store_busy` with `Retry-After`, never a 500.
 */
import { type ErrorEnvelope, toErrorEnvelope } from "../contract/index.js";
import {
  AuthenticationError,
  ConflictError,
  DataError,
  NotFoundError,
  OptimizationError,
  PortfolioError,
  StoreBusyError,
  StoreVersionError,
  TaxLotError,
  TooManyRequestsError,
  ValidationError,
} from "../core/errors.js";
import { isStoreBusyError } from "../service/index.js";
import { HttpError } from "./http-error.js";

/** Status, body and headers of an error response. */
export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
}

/** Message of every 500: no class names, paths, SQL or stack. */
export const INTERNAL_ERROR_MESSAGE =
  "The server failed to handle the request. The error was logged; retry later or contact the operator.";

/** Message of a 503 `store_busy`. */
export const STORE_BUSY_MESSAGE =
  "The store is locked by another writer (for example an import running on the same store file); nothing was changed. Send the request again after the Retry-After delay.";

/** The error for a store that stayed locked (SQLite's busy error is not a lotwise error; this is). */
export function storeBusyError(retryAfterSeconds = 1): StoreBusyError {
  return new StoreBusyError(STORE_BUSY_MESSAGE, retryAfterSeconds);
}

/** Challenge sent with every 401 (RFC 9110 section 11.6.1 asks for one; the scheme is the spec's apiKey header). */
export const WWW_AUTHENTICATE = 'ApiKey realm="lotwise", header="X-Api-Key"';

/**
 * The HTTP status of a lotwise error.
 * - ValidationError (and its subclasses: invalid_expression, csv errors...) 400
 * - AuthenticationError 401; NotFoundError 404; ConflictError 409
 * - OptimizationError (infeasible, unbounded, solver_error), DataError (missing_price...), TaxLotError 422
 * - TooManyRequestsError (too_many_queued_jobs, rate_limited) 429
 * - StoreVersionError, StoreBusyError 503; any other PortfolioError 400
 */
export function statusOf(error: PortfolioError): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof ValidationError) return 400;
  if (error instanceof AuthenticationError) return 401;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof OptimizationError || error instanceof DataError || error instanceof TaxLotError)
    return 422;
  if (error instanceof TooManyRequestsError) return 429;
  if (error instanceof StoreVersionError || error instanceof StoreBusyError) return 503;
  return 400;
}

/**
 * The response for any thrown value. Unknown errors are passed to `log` (with their stack) and answered with a
 * generic 500.
 */
export function errorResponse(thrown: unknown, log: (message: string) => void): ErrorResponse {
  const error = isStoreBusyError(thrown) ? storeBusyError() : thrown;
  if (error instanceof PortfolioError) {
    const status = statusOf(error);
    const headers: Record<string, string> = error instanceof HttpError ? { ...error.headers } : {};
    if (status === 401) headers["WWW-Authenticate"] = WWW_AUTHENTICATE;
    if (error instanceof TooManyRequestsError && error.retryAfterSeconds !== undefined)
      headers["Retry-After"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    if (error instanceof StoreBusyError) headers["Retry-After"] = String(error.retryAfterSeconds);
    return { status, body: toErrorEnvelope(error), headers };
  }
  log(
    `lotwise serve: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return {
    status: 500,
    body: { error: { code: "internal_error", message: INTERNAL_ERROR_MESSAGE } },
    headers: {},
  };
}
