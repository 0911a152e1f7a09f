/**
 * The REST layer's public part: `RESTClient` and its request builder over the undici
 * transport, client-side rate limiting, `Retry-After` retries, warning headers, the request
 * option types, watches (`AsyncIterable<WatchEvent>` with an idle deadline) and the typed
 * request errors.
 *
 * The machinery under them (watch frame decoding, response-to-error decoding, retry
 * rules, header encoders, Go duration formatting) is imported from its modules, not from here.
 *
 * @packageDocumentation
 */
export {
  RESTClient,
  defaultRateLimiter,
  DEFAULT_MAX_RESPONSE_BODY_BYTES,
  type RESTClientOptions,
} from "./rest-client.js";
export { RequestBuilder, type RequestClient } from "./request-builder.js";
export type { RequestContext } from "./request-executor.js";
export { NO_RESPONSE_CODE, type RequestMetrics } from "./request-metrics.js";
export type { RestResponse, ResponseHeaders } from "./rest-response.js";
export {
  Transport,
  type ConnectionSettings,
  type TlsConnectionOptions,
  type HttpMethod,
  type TransportRequest,
  type TransportResponse,
} from "./transport.js";
export type {
  CreateOptions,
  DeleteOptions,
  DryRun,
  FieldValidation,
  GetOptions,
  ListOptions,
  PatchOptions,
  Preconditions,
  PropagationPolicy,
  ResourceVersionMatch,
  UpdateOptions,
} from "./request-options.js";
export { PatchTypes, type PatchType } from "./patch-type.js";
export {
  Watch,
  DEFAULT_WATCH_IDLE_GRACE_MS,
  DEFAULT_WATCH_IDLE_BASE_MS,
  type WatchOptions,
} from "./watch.js";
export type { WatchEvent, WatchEventType } from "./watch-event.js";
export { DecodedWatch, type WatchChunkDecoder } from "./decoded-watch.js";
export { WatchDecodeError, WatchIdleTimeoutError } from "./watch-errors.js";
export {
  ResponseStream,
  type OpenResponseBody,
  type ResponseStreamOptions,
} from "./response-stream.js";
export { LineStream, DEFAULT_MAX_LINE_BYTES } from "./line-stream.js";
export {
  RequestTimeoutError,
  ResponseDecodeError,
  ResponseTooLargeError,
  TransportError,
  UnsupportedProxyError,
} from "./request-errors.js";
export {
  createWarningLogger,
  ignoreWarnings,
  type Warning,
  type WarningHandler,
  type WarningLoggerOptions,
} from "./warnings.js";
export { DEFAULT_MAX_RETRIES } from "./retry-policy.js";
export { defaultUserAgent } from "./user-agent.js";
