/**
 * The REST layer: transport, `RESTClient` and its request builder, client-side rate
 * limiting, `Retry-After` retries, `Status` error decoding, warning headers and watch
 * stream decoding.
 *
 * @packageDocumentation
 */
export { RESTClient, defaultRateLimiter, type RESTClientOptions } from "./rest-client.js";
export { RequestBuilder, type RequestClient } from "./request-builder.js";
export type { RestResponse, ResponseHeaders } from "./rest-response.js";
export {
  Transport,
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
  watchIdleTimeoutMs,
  DEFAULT_WATCH_IDLE_GRACE_MS,
  SERVER_MAX_DEFAULT_WATCH_MS,
  type WatchOptions,
} from "./watch.js";
export type { WatchEvent, WatchEventType } from "./watch-event.js";
export { WatchFrameDecoder } from "./watch-frame-decoder.js";
export { WatchDecodeError, WatchIdleTimeoutError } from "./watch-errors.js";
export { LineStream } from "./line-stream.js";
export {
  ResponseStream,
  type OpenResponseBody,
  type ResponseStreamOptions,
} from "./response-stream.js";
export {
  RequestTimeoutError,
  ResponseDecodeError,
  TransportError,
  UnsupportedProxyError,
} from "./request-errors.js";
export {
  createWarningLogger,
  ignoreWarnings,
  parseWarningHeaders,
  type Warning,
  type WarningHandler,
  type WarningLoggerOptions,
} from "./warnings.js";
export {
  errorFromResponse,
  genericServerResponseError,
  type ErrorRequestInfo,
} from "./response-errors.js";
export {
  DEFAULT_MAX_RETRIES,
  isConnectionResetError,
  retryAfterHeaderSeconds,
  retryDelaySeconds,
} from "./retry-policy.js";
export { defaultUserAgent } from "./user-agent.js";
export { escapeExtraKey, impersonationHeaders } from "./impersonation-headers.js";
export { formatGoDuration } from "./go-duration.js";
