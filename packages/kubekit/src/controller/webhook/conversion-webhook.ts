/**
 * A CRD conversion webhook (controller-runtime's `pkg/webhook/conversion`: `conversion.go` for
 * the ConversionReview handling, hub and spokes as its `Hub`/`Convertible`), answering
 * `ConversionReview` (`apiextensions.k8s.io/v1`, and `v1beta1` which has the same fields).
 */
import { errorMessage } from "../../core/error-message.js";
import { deepClone, isJsonObject } from "../../core/json.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import {
  untilAborted,
  type WebhookAnswer,
  type WebhookHandler,
  type WebhookRequest,
} from "./webhook-handler.js";

/**
 * Converts one object to `toVersion` (an apiVersion such as `example.com/v1`). It gets a deep
 * copy of the object (change it or build another); the webhook sets `apiVersion` on the result.
 */
export type ConversionFunction = (
  obj: JsonObject,
  toVersion: string,
  signal: AbortSignal,
) => JsonObject | Promise<JsonObject>;

/** How one spoke version converts to and from the hub (controller-runtime's `Convertible`). */
export interface ConversionSpoke {
  /** This spoke's object (a deep copy) converted to the hub version. */
  toHub(obj: JsonObject, signal: AbortSignal): JsonObject | Promise<JsonObject>;
  /** The hub's object (a deep copy) converted to this spoke version. */
  fromHub(hub: JsonObject, signal: AbortSignal): JsonObject | Promise<JsonObject>;
}

/**
 * What {@link conversionWebhook} converts with: one function for every pair of versions, or a
 * hub version and its spokes (every conversion between two spokes goes through the hub).
 */
export type ConversionWebhookOptions =
  | {
      /** Converts any object to any version the CRD serves. */
      readonly convert: ConversionFunction;
    }
  | {
      /** The hub's apiVersion, e.g. `example.com/v1`. */
      readonly hub: string;
      /** The spokes by apiVersion, e.g. `{ "example.com/v1beta1": { toHub, fromHub } }`. */
      readonly spokes: Readonly<Record<string, ConversionSpoke>>;
    };

const REVIEW_VERSIONS: ReadonlySet<string> = new Set([
  "apiextensions.k8s.io/v1",
  "apiextensions.k8s.io/v1beta1",
]);

/** A ConversionReview that cannot be read. */
class ConversionReviewDecodeError extends Error {}

interface ConversionRequest {
  readonly version: string;
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly JsonObject[];
}

function decodeConversionReview(body: JsonValue): ConversionRequest {
  if (!isJsonObject(body))
    throw new ConversionReviewDecodeError("a ConversionReview must be a JSON object");
  const version = body["apiVersion"] ?? "apiextensions.k8s.io/v1";
  if (typeof version !== "string" || !REVIEW_VERSIONS.has(version)) {
    throw new ConversionReviewDecodeError(
      `apiVersion: unsupported ConversionReview version ${JSON.stringify(version)}, expected apiextensions.k8s.io/v1`,
    );
  }
  const request = body["request"];
  if (!isJsonObject(request)) throw new ConversionReviewDecodeError("conversion request is nil");
  const { uid, desiredAPIVersion, objects } = request;
  if (typeof uid !== "string")
    throw new ConversionReviewDecodeError("request.uid: missing or not a string");
  if (typeof desiredAPIVersion !== "string" || desiredAPIVersion === "") {
    throw new ConversionReviewDecodeError("request.desiredAPIVersion: missing or not a string");
  }
  if (!Array.isArray(objects) || !objects.every(isJsonObject)) {
    throw new ConversionReviewDecodeError("request.objects: missing or not a list of objects");
  }
  return { version, uid, desiredAPIVersion, objects: objects as JsonObject[] };
}

/** The ConversionReview answer: converted objects, or a failure with a message. */
function reviewResponse(
  version: string,
  uid: string,
  outcome: { readonly converted: readonly JsonObject[] } | { readonly failure: string },
): JsonObject {
  const response: JsonObject =
    "converted" in outcome
      ? { uid, convertedObjects: [...outcome.converted], result: { status: "Success" } }
      : { uid, convertedObjects: [], result: { status: "Failure", message: outcome.failure } };
  return { apiVersion: version, kind: "ConversionReview", response };
}

/** Converts `obj` with the hub and its spokes (controller-runtime's `convertObject` and `convertViaHub`). */
async function convertThroughHub(
  hub: string,
  spokes: Readonly<Record<string, ConversionSpoke>>,
  obj: JsonObject,
  to: string,
  signal: AbortSignal,
): Promise<JsonObject> {
  const from = String(obj["apiVersion"]);
  const spokeOf = (version: string): ConversionSpoke => {
    const spoke = Object.hasOwn(spokes, version) ? spokes[version] : undefined;
    if (spoke === undefined)
      throw new Error(
        `unsupported conversion from ${from} to ${to}: ${version} is neither the hub nor a spoke`,
      );
    return spoke;
  };
  if (from === hub) return spokeOf(to).fromHub(obj, signal);
  const inHub = await spokeOf(from).toHub(obj, signal);
  if (to === hub) return inHub;
  return spokeOf(to).fromHub({ ...inHub, apiVersion: hub }, signal);
}

/**
 * A conversion webhook for a CRD with `conversion.strategy: Webhook`, for
 * {@link WebhookServer.register}.
 *
 * Guarantees: every object of the request is converted to `desiredAPIVersion` in order, each
 * from a deep copy, its `apiVersion` set on the result; an object already at that version is
 * returned as it is (controller-runtime refuses it, kube-apiserver never sends one). A throw,
 * a version neither hub nor spoke, or a result that is no object answers `result.status:
 * Failure` with the message (kube-apiserver then fails the read or write). The review's
 * version and `uid` are echoed. A body that is no ConversionReview gets HTTP 400 with a
 * failure message; the request's deadline answers a failure before the caller gives up.
 *
 * @example
 * A hub (`v1`) and one spoke (`v1beta1`, whose `spec.size` is `spec.replicas` in v1):
 *
 * ```ts
 * import { WebhookServer, conversionWebhook } from "kubekit";
 *
 * const server = new WebhookServer({ port: 0, certDir: "/tmp/k8s-webhook-server/serving-certs" });
 * server.register(
 *   "/convert",
 *   conversionWebhook({
 *     hub: "example.com/v1",
 *     spokes: {
 *       "example.com/v1beta1": {
 *         toHub: ({ spec, ...rest }) => {
 *           const { size, ...others } = (spec ?? {}) as Record<string, number>;
 *           return { ...rest, spec: { ...others, replicas: size ?? 1 } };
 *         },
 *         fromHub: ({ spec, ...rest }) => {
 *           const { replicas, ...others } = (spec ?? {}) as Record<string, number>;
 *           return { ...rest, spec: { ...others, size: replicas ?? 1 } };
 *         },
 *       },
 *     },
 *   }),
 * );
 * ```
 */
export function conversionWebhook(options: ConversionWebhookOptions): WebhookHandler {
  const convertOne = (
    obj: JsonObject,
    to: string,
    signal: AbortSignal,
  ): Promise<JsonObject> | JsonObject =>
    "convert" in options
      ? options.convert(obj, to, signal)
      : convertThroughHub(options.hub, options.spokes, obj, to, signal);
  const convertAll = async (
    request: ConversionRequest,
    signal: AbortSignal,
  ): Promise<JsonObject[]> => {
    const converted: JsonObject[] = [];
    for (const obj of request.objects) {
      if (obj["apiVersion"] === request.desiredAPIVersion) {
        converted.push(obj);
        continue;
      }
      const result: unknown = await convertOne(deepClone(obj), request.desiredAPIVersion, signal);
      if (!isJsonObject(result))
        throw new Error(
          `the conversion of ${String(obj["apiVersion"])} to ${request.desiredAPIVersion} returned no object`,
        );
      converted.push({ ...result, apiVersion: request.desiredAPIVersion });
    }
    return converted;
  };
  return {
    async handle(webhookRequest: WebhookRequest): Promise<WebhookAnswer> {
      let request: ConversionRequest;
      try {
        request = decodeConversionReview(webhookRequest.body);
      } catch (error) {
        if (!(error instanceof ConversionReviewDecodeError)) throw error;
        return { status: 400, body: badConversionReview(error.message) };
      }
      const work = convertAll(request, webhookRequest.signal).then(
        (converted) => ({ converted }),
        (error: unknown) => {
          webhookRequest.logger.error("conversion webhook: failed to convert", {
            uid: request.uid,
            error,
          });
          return { failure: errorMessage(error) };
        },
      );
      const outcome = await untilAborted(work, webhookRequest.signal, () => ({
        failure: "the conversion did not finish within the request's timeout",
      }));
      return { status: 200, body: reviewResponse(request.version, request.uid, outcome) };
    },
    badRequest: badConversionReview,
  };
}

function badConversionReview(message: string): JsonValue {
  return reviewResponse("apiextensions.k8s.io/v1", "", { failure: message });
}
