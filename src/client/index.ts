/**
 * @module client
 * The HTTP client of lotwise (`lotwise/client`): {@link RemoteBackend}, the Backend of the CLI's remote mode, and
 * the {@link HttpClient} under it.
 */
export {
  ConnectionError,
  errorFromResponse,
  InvalidResponseError,
  RemoteServiceError,
} from "./errors.js";
export {
  type ClientMethod,
  DEFAULT_RATE_LIMIT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  HttpClient,
  type HttpClientOptions,
  type RequestOptions,
} from "./http-client.js";
export { RemoteBackend, type RemoteBackendOptions } from "./remote-backend.js";
