/**
 * @module server/http-error
 * Errors that belong to HTTP itself (no such route, wrong method, body too large, wrong content type, unreadable
 * body). They are {@link PortfolioError}s with a fixed status so that the one error handler treats them like the
 * errors of the service layer.
 */
import { PortfolioError } from "../core/errors.js";

/** Codes of the HTTP-level errors and their statuses. */
export const HTTP_ERROR_STATUS = {
  /** No route has this path (or the path differs from a route only by its trailing slash). */
  not_found: 404,
  /** The path exists but not with this method; the response carries `Allow`. */
  method_not_allowed: 405,
  /** The body is longer than the server's limit. */
  payload_too_large: 413,
  /** The body's Content-Type is not one the route accepts. */
  unsupported_media_type: 415,
  /** The request line (URL) and headers together are longer than the server's limit (Node's 16 KiB). */
  request_header_fields_too_large: 431,
  /** The server is shutting down and did not run the request (a heavy request still queued for a worker). */
  service_unavailable: 503,
} as const;

/** Code of an HTTP-level error. */
export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/**
 * An HTTP-level failure with its status and optional response headers (e.g. `Allow` on a 405).
 * @example throw new HttpError("payload_too_large", "The body has 2 MiB; the limit is 1 MiB.")
 */
export class HttpError extends PortfolioError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(code: HttpErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message, { code });
    this.status = HTTP_ERROR_STATUS[code];
    this.headers = headers;
  }
}
