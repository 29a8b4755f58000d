/**
 * @module client/errors
 * From an HTTP error response to the error the local backend would have thrown: the server's envelope
 * `{"error": {"code", "message", "details"?}}` becomes the matching {@link PortfolioError} subclass with the same
 * code, message and field issues, so the CLI prints the same error locally and remotely.
 */
import { errorEnvelopeSchema } from "../contract/index.js";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PortfolioError,
  ValidationError,
} from "../core/errors.js";

/** An error answer of the server that has no closer local class (405, 413, 415, 422, 500, 503...). */
export class RemoteServiceError extends PortfolioError {
  /** HTTP status of the answer. */
  readonly status: number;
  constructor(message: string, status: number, code: string) {
    super(message, { code });
    this.status = status;
  }
}

/** The server could not be reached, or did not answer in time (`code` is `connection_failed` or `timeout`). */
export class ConnectionError extends PortfolioError {
  constructor(message: string, code: "connection_failed" | "timeout", cause?: unknown) {
    super(message, { code, cause });
  }
}

/** A success answer that does not match the contract (`invalid_response`), naming the operation. */
export class InvalidResponseError extends PortfolioError {
  constructor(message: string) {
    super(message, { code: "invalid_response" });
  }
}

/**
 * The error for an error response: 400 ValidationError (with the details as issues), 401 AuthenticationError,
 * 404 NotFoundError, 409 ConflictError, others RemoteServiceError; all keep the server's code and message.
 * A body that is not an envelope gives a RemoteServiceError `http_<status>` quoting the start of the body.
 * @example errorFromResponse(404, { error: { code: "client_not_found", message: "Client x not found." } }, "getClient")
 */
export function errorFromResponse(status: number, body: unknown, operation: string): PortfolioError {
  const parsed = errorEnvelopeSchema.safeParse(body);
  if (!parsed.success) {
    const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
    return new RemoteServiceError(
      `The server answered ${status} to ${operation} without an error envelope: ${text.slice(0, 200)}`,
      status,
      `http_${status}`,
    );
  }
  const { code, message, details } = parsed.data.error;
  switch (status) {
    case 400:
      return new ValidationError(message, details ?? [], code);
    case 401:
      return new AuthenticationError(message);
    case 404:
      return new NotFoundError(message, code);
    case 409:
      return new ConflictError(message, code);
    default:
      return new RemoteServiceError(message, status, code);
  }
}
