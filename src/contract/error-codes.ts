/**
 * @module contract/error-codes
 * Every error code the HTTP service answers, with its status and when it happens. The operation table
 * (service/operations.ts) lists, for each operation, the codes of its own failures as a typed tuple of these
 * codes; the error table of docs/http.md and each operation's error statuses in the OpenAPI document are
 * generated from this catalog and those lists.
 */

/** One code: the HTTP status it is answered with and when. */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly when: string;
}

/** The catalog, in documentation order (by status). */
export const ERROR_CODES = {
  validation_error: {
    status: 400,
    when: "a field fails its schema, or a reference in the body does not resolve (unknown theme_asset_id, asset class, configuration, theme, index); `details` name the fields",
  },
  malformed_body: {
    status: 400,
    when: "the body does not parse as its Content-Type says: bad JSON, JSON nested more than 64 levels, empty body, invalid UTF-8, a `__proto__` key, a JSON key repeated in one object, malformed or duplicate form keys, gaps in form array indexes, file parts",
  },
  invalid_path_parameter: { status: 400, when: "a path parameter is not a uuid" },
  malformed_request: {
    status: 400,
    when: "the request is not well-formed HTTP/1.1 (answered by the node server before the app)",
  },
  invalid_tickers: {
    status: 400,
    when: "ticker references that do not resolve (unknown, ambiguous or duplicated); `details` name them",
  },
  invalid_expression: {
    status: 400,
    when: "a filter expression that does not parse; the message gives the position",
  },
  invalid_methodology: { status: 400, when: "a theme methodology that cannot be used" },
  invalid_cron: {
    status: 400,
    when: "the cron of a dynamic rule of the configuration does not parse (found when the rules are applied at a date)",
  },
  invalid_window: {
    status: 400,
    when: "the theme backtest window spans more daily prices than one request computes (endpoint 8); a malformed or reversed date pair fails the query schema (`validation_error`)",
  },
  unknown_benchmark: {
    status: 400,
    when: "the theme backtest benchmark is neither an index nor a ticker (endpoint 8)",
  },
  invalid_query: {
    status: 400,
    when: "the catalog query has no searchable word or too many words (endpoint 9); an empty, blank or over-long query fails the body schema (`validation_error`)",
  },
  invalid_lots_file: {
    status: 400,
    when: "a lots CSV with a bad row or header; `details` name the line and column",
  },
  invalid_actions_file: {
    status: 400,
    when: "a corporate-actions CSV with a bad row, header or unknown listing; `details` name the line and column",
  },
  invalid_trades_file: {
    status: 400,
    when: "a trade-confirmation CSV with a bad row or header; `details` name the line and column, nothing is applied",
  },
  unauthorized: { status: 401, when: "missing, malformed, unknown or revoked API key" },
  not_found: {
    status: 404,
    when: "no route has this path (the message says when only the trailing slash differs)",
  },
  organization_not_found: {
    status: 404,
    when: "the path's organization is not the key's (whether or not it exists)",
  },
  client_not_found: { status: 404, when: "the client does not exist in the key's organization" },
  account_not_found: {
    status: 404,
    when: "the account does not exist in the key's organization (or not under that client)",
  },
  portfolio_config_not_found: {
    status: 404,
    when: "the portfolio configuration does not exist in the key's organization",
  },
  asset_class_not_found: { status: 404, when: "the asset class does not exist in the key's organization" },
  rebalance_run_not_found: { status: 404, when: "a rebalance run that is not the organization's" },
  proposal_not_found: { status: 404, when: "a stored proposal that does not exist (under that account)" },
  risk_model_not_found: { status: 404, when: "an uploaded risk model that is not the organization's" },
  theme_not_found: { status: 404, when: "the theme does not exist in the key's organization" },
  snapshot_not_found: { status: 404, when: "endpoint 7 for a revision that has not been evaluated" },
  preset_not_found: { status: 404, when: "a theme universe names a preset that does not exist" },
  index_not_found: { status: 404, when: "an index that is not in the store" },
  unknown_security: { status: 404, when: "a security that is not in the security master" },
  backtest_not_found: {
    status: 404,
    when: "the backtest job does not exist in the key's organization (or under that account)",
  },
  scan_job_not_found: { status: 404, when: "the scan job does not exist in the key's organization" },
  method_not_allowed: {
    status: 405,
    when: "the path exists with other methods; `Allow` lists them (GET implies HEAD)",
  },
  conflict: {
    status: 409,
    when: "the request conflicts with the stored state (e.g. composite asset classes nested too deep)",
  },
  backtest_finished: { status: 409, when: "cancelling a backtest job that already ended" },
  scan_job_finished: { status: 409, when: "cancelling a scan job that already ended" },
  action_already_applied: {
    status: 409,
    when: "a corporate action was applied to the account by a concurrent request; nothing of the batch was written",
  },
  execution_already_applied: {
    status: 409,
    when: "an execution id (a trade's, or a proposal's order) already applied to the account; nothing of the batch is applied",
  },
  lots_changed: {
    status: 409,
    when: "a lot the executions relieve was changed by a concurrent request after it was read; nothing of the batch is applied (retry)",
  },
  payload_too_large: {
    status: 413,
    when: "the body is over the limit (1 MiB by default; 16 MiB for a risk-model upload, 256 MiB for a streamed lots CSV)",
  },
  unsupported_media_type: {
    status: 415,
    when: "no Content-Type on a body, or one the route does not accept, a charset other than UTF-8, or a compressed body (Content-Encoding other than identity)",
  },
  infeasible: {
    status: 422,
    when: "the optimizer finds no portfolio that meets the constraints (endpoint 1 builds none)",
  },
  unbounded: { status: 422, when: "the optimization problem is unbounded" },
  solver_error: { status: 422, when: "the solver failed to converge" },
  optimization_error: { status: 422, when: "the optimizer cannot produce a result" },
  missing_price: { status: 422, when: "no price for an asset on or before the date" },
  missing_fx: { status: 422, when: "no FX rate for a currency on or before the date" },
  missing_fx_rate: { status: 422, when: "no FX rate for a non-USD order of a proposal" },
  non_finite: { status: 422, when: "market data with a NaN or infinite value" },
  data_error: { status: 422, when: "market data needed by the operation is missing or unusable" },
  insufficient_history: { status: 422, when: "too little price history to estimate the risk model" },
  risk_model_inputs_missing: {
    status: 422,
    when: "no uploaded risk model of the configuration's kind dated on or before the date",
  },
  no_target: { status: 422, when: "the account has no target to drift from" },
  empty_account: { status: 422, when: "the account holds nothing (no lots and no cash)" },
  theme_not_evaluated: {
    status: 422,
    when: "a tilt toward a theme whose latest revision was never evaluated (no constituent snapshot); the message names the theme",
  },
  tilt_without_weights: { status: 422, when: "a tilt toward an index with no stored weights by the date" },
  invalid_tilt: {
    status: 422,
    when: "stored tilts of a sleeve whose |weight_adjustment| add up to more than 1 (refused at write time since)",
  },
  no_data_in_window: { status: 422, when: "the theme backtest window has no usable market data" },
  no_market_data: { status: 422, when: "the theme evaluation date has no market data" },
  insufficient_lots: { status: 422, when: "a sell asks for more than the lots hold" },
  tax_lot_error: { status: 422, when: "an impossible tax-lot operation" },
  rate_limited: {
    status: 429,
    when: "the API key used up its token bucket on the expensive routes; `Retry-After` gives the seconds until the next token (see Limits)",
  },
  too_many_queued_jobs: {
    status: 429,
    when: "endpoint 2 when the organization already has the most PENDING backtest jobs the server accepts (docs/backtest-jobs.md); no `Retry-After` (it depends on the runner)",
  },
  request_header_fields_too_large: {
    status: 431,
    when: "the URL and headers together pass 16 KiB (Node's `--max-http-header-size`); send long inputs in a body",
  },
  internal_error: { status: 500, when: "an unexpected failure; generic message" },
  store_version: { status: 503, when: "the store file cannot be used by this server version" },
  store_busy: {
    status: 503,
    when: "another process holds the store's write lock past the bounded wait (2 s); `Retry-After: 1`; nothing changed",
  },
  service_unavailable: {
    status: 503,
    when: "the server is shutting down and did not run this heavy request (it was still queued for a request worker); retry it",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the catalog. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The status of a code. */
export function errorCodeStatus(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
