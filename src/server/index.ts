/**
 * @module server
 * The HTTP service (`lotwise/http`): the Hono app over a store, the Node server, the route table, the shared body
 * parser and the OpenAPI document.
 */
export {
  type AppEnv,
  type AppOptions,
  appRequestPoolStats,
  appRequestWorkers,
  closeApp,
  createApp,
  DOCS_PATH,
  HEALTHZ_PATH,
  type LotwiseApp,
  markAppStopping,
  OPENAPI_PATH,
  READYZ_PATH,
  warmApp,
} from "./app.js";
export {
  API_KEY_HEADER,
  ApiKeyAuthenticator,
  type AuthenticatorOptions,
  DEFAULT_TOUCH_INTERVAL_MS,
  type Principal,
} from "./auth.js";
export {
  type BodyEncoding,
  DEFAULT_MAX_BODY_BYTES,
  jsonDuplicateKey,
  MEDIA_TYPES,
  type ParsedBody,
  parseContentType,
  parseJsonText,
  parseUrlEncodedText,
  type ReadBodyOptions,
  readBody,
  readBodyBytes,
} from "./body.js";
export {
  DOCS_ASSET_NAMES,
  DOCS_ASSETS_PATH,
  DOCS_CSP,
  docsAsset,
  docsPageHtml,
  swaggerUiVersion,
} from "./docs-ui.js";
export {
  type ErrorResponse,
  errorResponse,
  INTERNAL_ERROR_MESSAGE,
  STORE_BUSY_MESSAGE,
  statusOf,
  storeBusyError,
  WWW_AUTHENTICATE,
} from "./error-response.js";
export {
  formFieldsToObject,
  MAX_FORM_ARRAY_INDEX,
  MAX_FORM_FIELDS,
  MAX_FORM_KEY_DEPTH,
  malformedBody,
  parseFormKey,
} from "./form-fields.js";
export {
  DEFAULT_READINESS_TIMEOUT_MS,
  type HealthStatus,
  health,
  type Pingable,
  type Readiness,
  type ReadinessCheck,
  type ReadinessOptions,
  readiness,
} from "./health.js";
export {
  errorCodesTableMarkdown,
  generatedHttpDocs,
  renderHttpDocs,
  routeErrorCodes,
  routesTableMarkdown,
} from "./http-docs.js";
export { HTTP_ERROR_STATUS, HttpError, type HttpErrorCode } from "./http-error.js";
export { DEFAULT_HOST, DEFAULT_PORT, type ServeOptions, type ServerHandle, serve } from "./node.js";
export {
  buildOpenApiDocument,
  type OpenApiDocument,
  type OpenApiOperation,
  SECURITY_SCHEME,
} from "./openapi.js";
export {
  DEFAULT_RATE_LIMIT_BURST,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  type RateLimitOptions,
  TokenBucketLimiter,
} from "./rate-limit.js";
export {
  defaultRequestWorkers,
  type RequestAnswer,
  type RequestTask,
  RequestWorkerPool,
  type RequestWorkerPoolOptions,
} from "./request-pool.js";
export {
  type AnyRoute,
  defineRoute,
  type HttpMethod,
  honoPath,
  isOrganizationPath,
  pathParameters,
  type RouteBody,
  type RouteInput,
  type RouteResponse,
  type RouteSpec,
  templateRegExp,
} from "./route.js";
export { API_ROUTES, ORG_PREFIX, routeOf } from "./routes.js";
export { DEFAULT_STORE_BUSY_WAIT_MS, retryWhileBusy } from "./store-busy.js";
