import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { ApiServer, type ApiServerOptions } from "@kubekit/apiserver";
import {
  startCluster,
  type SimulatedCluster,
  type SimulatedClusterOptions,
} from "@kubekit/cluster";
import { ApiClient } from "./api-client.js";
import type { RawResponse } from "./api-client.js";

/** A JSON object as the integration tests build and inspect it. */
export type Json = Record<string, unknown>;

/** A started embedded server with a raw client on it; both are set once `beforeAll` has run. */
export interface ServerHarness {
  server: ApiServer;
  client: ApiClient;
  /** The simulated control plane, when `cluster` was given. */
  cluster?: SimulatedCluster;
}

/** {@link useServer}'s options: the server's, and a simulated control plane to run against it. */
export interface ServerHarnessOptions extends ApiServerOptions {
  /** Start `startCluster({ server, ...cluster })` (`true`: its defaults); stopped with the server. */
  readonly cluster?: boolean | SimulatedClusterOptions;
}

/**
 * Starts a server and, with `cluster`, a simulated control plane against it (stopped by the
 * server's `stop()`, which runs it first).
 */
export async function startServer(
  options: ServerHarnessOptions = {},
): Promise<{ server: ApiServer; cluster?: SimulatedCluster }> {
  const { cluster, ...serverOptions } = options;
  const server = await ApiServer.start(serverOptions);
  if (!cluster) return { server };
  try {
    return {
      server,
      cluster: await startCluster({ server, ...(cluster === true ? {} : cluster) }),
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/**
 * Registers, in the calling `describe`, a `beforeAll` that starts a server with `options` (and
 * its simulated cluster, with `cluster`) and a client for it, an `afterEach` that clears injected faults (so no test sees another's), and an
 * `afterAll` that closes the client and stops the server. The returned harness is filled in by
 * the `beforeAll`: read its fields inside hooks and tests only. `beforeAll` hooks registered
 * after this call run after the server has started.
 */
export function useServer(options: ServerHarnessOptions = {}): ServerHarness {
  const harness = {} as ServerHarness;
  beforeAll(async () => {
    const started = await startServer(options);
    harness.server = started.server;
    if (started.cluster) harness.cluster = started.cluster;
    harness.client = ApiClient.for(harness.server);
  });
  afterEach(() => {
    harness.server.faults.clear();
  });
  afterAll(async () => {
    await harness.client?.close();
    await harness.server?.stop();
  });
  return harness;
}

/**
 * Polls `probe` every 10 ms until it returns a value other than undefined and resolves with
 * that value; rejects with "timed out waiting for `what`" once `timeoutMs` has passed (the probe
 * runs at least once, and once more after the deadline is first seen).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls `condition` every 10 ms until it holds; the timing of {@link eventually}. */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  await eventually(what, async () => ((await condition()) ? true : undefined), timeoutMs);
}

/** A response header by (case-insensitive) name; repeated headers are joined with ", ". */
export function header(res: RawResponse, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** One entry of a Status's `details.causes` (metav1.StatusCause). */
export interface StatusCause {
  reason: string;
  field: string;
  message: string;
}

/** The `details.causes` of a Status body (empty when it has none). */
export function causesOf(status: Json): StatusCause[] {
  return ((status["details"] as Json | undefined)?.["causes"] as StatusCause[] | undefined) ?? [];
}

/**
 * Asserts that `res` is a failure Status (kind Status, apiVersion v1) whose HTTP status and
 * `code` are `code` and whose `reason` is `reason`; with `reason` undefined, asserts that the
 * Status has no (or an empty) reason. Returns the Status body.
 */
export function expectStatus(res: RawResponse, code: number, reason: string | undefined): Json {
  expect(res.status, res.text).toBe(code);
  expect(res.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code });
  if (reason === undefined) expect(res.json.reason ?? "").toBe("");
  else expect(res.json.reason).toBe(reason);
  return res.json as Json;
}

/**
 * go-restful's 404 inside a served group-version: a Status with reason NotFound and the
 * generic message (paths outside every served group-version get the plain-text page).
 */
export function expectRouteNotFound(res: RawResponse): void {
  expect(res.status).toBe(404);
  expect(res.json).toMatchObject({
    kind: "Status",
    status: "Failure",
    reason: "NotFound",
    message: "the server could not find the requested resource",
    code: 404,
  });
}

/** The plain-text `404 page not found` of paths outside every served group-version. */
export function expectPlainNotFound(res: RawResponse): void {
  expect(res.status).toBe(404);
  expect(header(res, "content-type")).toMatch(/^text\/plain/);
  expect(res.text).toBe("404 page not found\n");
}

/**
 * Creates a namespace (asserting 201) and waits until the server's own follow-up write (the
 * `default` ServiceAccount) has happened, so that later revision arithmetic sees only the
 * test's writes.
 */
export async function createNamespace(client: ApiClient, name: string): Promise<void> {
  const res = await client.post("/api/v1/namespaces", { metadata: { name } });
  expect(res.status, res.text).toBe(201);
  await waitFor(`serviceaccount ${name}/default`, async () => {
    const sa = await client.get(`/api/v1/namespaces/${name}/serviceaccounts/default`);
    return sa.status === 200;
  });
}

/** Creates a ConfigMap (asserting 201; `data` defaults to empty) and returns the stored object. */
export async function createConfigMap(
  client: ApiClient,
  namespace: string,
  name: string,
  options: { data?: Record<string, string>; labels?: Record<string, string> } = {},
): Promise<RawResponse["json"]> {
  const res = await client.post(`/api/v1/namespaces/${namespace}/configmaps`, {
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    data: options.data ?? {},
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The collection path of CustomResourceDefinitions. */
export const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** What {@link crdBody} builds a CustomResourceDefinition from. */
export interface CrdOptions {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly scope?: "Namespaced" | "Cluster";
  readonly shortNames?: string[];
  readonly printerColumns?: Json[];
  /** `served`/`storage` per version name; default one version v1 served and stored. */
  readonly versions?: { name: string; served: boolean; storage: boolean }[];
  readonly subresources?: Json;
  readonly name?: string;
}

const PRESERVE_SCHEMA = {
  openAPIV3Schema: {
    type: "object",
    properties: {
      spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    },
  },
};

/**
 * A CustomResourceDefinition (default name `plural.group`, scope Namespaced, singular the
 * lower-cased kind, listKind `<Kind>List`) whose every version keeps unknown fields of `spec`
 * and `status` and carries the given subresources and printer columns.
 */
export function crdBody(o: CrdOptions): Json {
  const versions = o.versions ?? [{ name: "v1", served: true, storage: true }];
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: o.name ?? `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? "Namespaced",
      names: {
        plural: o.plural,
        singular: o.kind.toLowerCase(),
        kind: o.kind,
        listKind: `${o.kind}List`,
        ...(o.shortNames ? { shortNames: o.shortNames } : {}),
      },
      versions: versions.map((v) => ({
        ...v,
        schema: PRESERVE_SCHEMA,
        ...(o.subresources ? { subresources: o.subresources } : {}),
        ...(o.printerColumns ? { additionalPrinterColumns: o.printerColumns } : {}),
      })),
    },
  };
}

/** The condition of type `type` in a CustomResourceDefinition's status, if any. */
export function crdCondition(crd: Json, type: string): Json | undefined {
  const conditions = ((crd["status"] as Json | undefined)?.["conditions"] as Json[]) ?? [];
  return conditions.find((c) => c["type"] === type);
}

/** POSTs a CustomResourceDefinition, asserting 201; returns the response. */
export async function createCrd(client: ApiClient, body: Json): Promise<RawResponse> {
  const res = await client.post(CRDS, body);
  expect(res.status, res.text).toBe(201);
  return res;
}

/**
 * Waits (as {@link eventually}) until the CRD `name` has condition Established=True, polling
 * through answers that are not a JSON object; resolves with the CRD.
 */
export function waitForCrdEstablished(client: ApiClient, name: string): Promise<Json> {
  return eventually(`CRD ${name} Established`, async () => {
    const res = await client.get(`${CRDS}/${name}`);
    if (typeof res.json !== "object" || res.json === null) return undefined;
    const established = crdCondition(res.json as Json, "Established");
    return established?.["status"] === "True" ? (res.json as Json) : undefined;
  });
}
