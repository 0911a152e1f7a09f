import type { JsonObject } from "kubekit";
import type { WriteRequest } from "./http-load.js";
import { CREATE_AGENT } from "./pod-writes.js";
import { makePod, podForCreate } from "./pods.js";

/**
 * The pods the server benchmark stores: {@link makePod}'s pod as a client creates it (no
 * server-owned fields, no status), with the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation `kubectl apply` writes (the create body itself, as JSON). The embedded server
 * stores one as about 5.2 KB of JSON once it added its defaults, a Pending status and a
 * managedFields entry — the size of the pods issue 24's targets are stated for.
 *
 * Guarantees: deterministic in `index` and `namespaces`; a distinct name for every index
 * below 27^5 (see {@link makePod}); the label `bench.kubekit.dev/index` holds the index, so
 * {@link STORED_POD_MARKER} occurs exactly once in each stored pod's JSON.
 */
export function storedPodBody(index: number, namespaces: readonly string[]): JsonObject {
  const body = podForCreate(makePod(index, { namespaces }));
  const metadata = body.metadata ?? {};
  const applied = JSON.stringify(body);
  return {
    ...body,
    metadata: {
      ...metadata,
      annotations: {
        ...metadata.annotations,
        "kubectl.kubernetes.io/last-applied-configuration": applied,
      },
    },
  } as unknown as JsonObject;
}

/**
 * The bytes that occur exactly once in the JSON of every stored pod of
 * {@link storedPodBody}: the start of its index label's value (the managedFields entry
 * naming that label reads `"f:bench.kubekit.dev/index":{}`, and the last-applied annotation
 * holds it JSON-escaped, so neither matches). Counting it counts the pods of a list body
 * without parsing it.
 */
export const STORED_POD_MARKER = Buffer.from('"bench.kubekit.dev/index":"');

/** The POST creating pod `index` of {@link storedPodBody} (expects 201). */
export function storedPodCreateRequest(index: number, namespaces: readonly string[]): WriteRequest {
  const body = storedPodBody(index, namespaces);
  const namespace = (body["metadata"] as { namespace?: string }).namespace ?? "";
  return {
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/pods`,
    body: JSON.stringify(body),
    contentType: "application/json",
    expectStatus: 201,
    userAgent: CREATE_AGENT,
  };
}

/** The pods of {@link storedPodBody} with indexes `first … first+count-1`, generated as iterated. */
export function* storedPods(
  first: number,
  count: number,
  namespaces: readonly string[],
): Generator<JsonObject> {
  for (let i = first; i < first + count; i++) yield storedPodBody(i, namespaces);
}
