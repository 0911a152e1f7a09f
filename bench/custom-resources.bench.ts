/**
 * Custom resources through the embedded server's write path, with and without a schema to
 * enforce: 10k creates of a `Gadget` whose CRD declares a 50-field spec schema (types, a
 * pattern, an enum, bounds, a default) and three CEL rules, against 10k creates of the same
 * objects for a CRD whose spec preserves unknown fields (a v1 CRD must have a schema: that is
 * the least one enforces). Both CRDs are served by one server in a child process of its own
 * (support/host-process.ts), so the figures are the server's CPU time for the creates
 * (user + system, read from the child) beside the wall time of the load; the client (undici,
 * 16 connections) runs in this process. The rounds alternate between the two CRDs after a
 * warm-up round of each.
 *
 * Target (issue 19): creating with the schema and the CEL rules costs at most 1.3× creating
 * without (CPU-time ratio of the medians, `details.targets`). `KUBEKIT_BENCH_SCALE` (default
 * 1) scales the object count.
 */
import type { JsonObject } from "kubekit";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
} from "./support/benchmark.js";
import { HostProcess } from "./support/host-process.js";
import { connectionPool, loadWrites, sendWrite, type WriteRequest } from "./support/http-load.js";
import { BENCH_AGENT } from "./support/pod-writes.js";
import { median } from "./support/timing.js";

const GROUP = "bench.kubekit.dev";
const NAMESPACE = "bench";
const FIELDS = 50;
const CONCURRENCY = 16;
const ROUNDS = 3;
const TARGET_RATIO = 1.3;

function objectCount(): number {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  return Math.max(20, Math.round(10_000 * scale));
}

/** Field `i` of the spec: a mix of the schema features a real CRD uses. */
function fieldSchema(i: number): JsonObject {
  switch (i % 5) {
    case 0:
      return { type: "integer", minimum: 0, maximum: 1_000_000 };
    case 1:
      return { type: "string", maxLength: 63, pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" };
    case 2:
      return { type: "string", enum: ["Always", "IfNotPresent", "Never"] };
    case 3:
      return { type: "boolean", default: false };
    default:
      return { type: "array", maxItems: 8, items: { type: "string", maxLength: 32 } };
  }
}

function fieldValue(i: number, n: number): JsonObject[string] {
  switch (i % 5) {
    case 0:
      return (n * 7 + i) % 1_000_000;
    case 1:
      return `name-${n}-${i}`;
    case 2:
      return "IfNotPresent";
    case 3:
      return true;
    default:
      return ["a", "b", `c${n}`];
  }
}

/** The CRD of `plural`: with the 50-field schema and three CEL rules, or preserving anything. */
function crd(plural: string, kind: string, enforced: boolean): JsonObject {
  const properties = Object.fromEntries(
    Array.from({ length: FIELDS }, (_, i) => [`field${i}`, fieldSchema(i)]),
  );
  const spec: JsonObject = enforced
    ? {
        type: "object",
        required: ["field0", "field1"],
        properties,
        "x-kubernetes-validations": [
          { rule: "self.field0 <= 1000000", message: "field0 is at most a million" },
          { rule: "self.field1.startsWith('name-')" },
          { rule: "!has(self.field4) || self.field4.size() <= 8" },
        ],
      }
    : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

function createRequest(plural: string, kind: string, n: number): WriteRequest {
  const spec = Object.fromEntries(
    Array.from({ length: FIELDS }, (_, i) => [`field${i}`, fieldValue(i, n)]),
  );
  return {
    method: "POST",
    path: `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/${plural}`,
    body: JSON.stringify({
      apiVersion: `${GROUP}/v1`,
      kind,
      metadata: { name: `${plural}-${n}`, namespace: NAMESPACE },
      spec,
    }),
    contentType: "application/json",
    expectStatus: 201,
    userAgent: BENCH_AGENT,
  };
}

/** Polls until the CRD's resource answers a list (it is served), at most 30 s. */
async function waitServed(
  pool: ReturnType<typeof connectionPool>,
  plural: string,
  signal: AbortSignal,
): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const res = await pool.request({
      method: "GET",
      path: `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/${plural}?limit=1`,
      signal,
    });
    await res.body.arrayBuffer();
    if (res.statusCode === 200) return;
    if (performance.now() > deadline) throw new Error(`${plural} was not served within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Sample {
  readonly cpuMs: number;
  readonly wallMs: number;
}

async function run(context: BenchmarkContext): Promise<BenchmarkResult> {
  const count = objectCount();
  const host = await HostProcess.start("kubekit");
  const pool = connectionPool(host.url, CONCURRENCY);
  try {
    const json = (body: JsonObject, path: string): WriteRequest => ({
      method: "POST",
      path,
      body: JSON.stringify(body),
      contentType: "application/json",
      expectStatus: 201,
      userAgent: BENCH_AGENT,
    });
    await sendWrite(
      pool,
      json(
        { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
        "/api/v1/namespaces",
      ),
      context.signal,
    );
    const kinds = { enforced: "Gadget", free: "Freeform" } as const;
    const samples: Record<keyof typeof kinds, Sample[]> = { enforced: [], free: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      for (const variant of round % 2 === 0
        ? (["enforced", "free"] as const)
        : (["free", "enforced"] as const)) {
        const kind = kinds[variant];
        const plural = `${kind.toLowerCase()}s${round}`;
        await sendWrite(
          pool,
          json(
            crd(plural, kind, variant === "enforced"),
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
          ),
          context.signal,
        );
        await waitServed(pool, plural, context.signal);
        const cpuBefore = await host.cpu();
        const load = await loadWrites(
          pool,
          count,
          CONCURRENCY,
          (n) => createRequest(plural, kind, n),
          context.signal,
        );
        const cpuAfter = await host.cpu();
        const cpuMs = cpuAfter.userMs + cpuAfter.systemMs - (cpuBefore.userMs + cpuBefore.systemMs);
        context.log(
          `round ${round} ${variant}: ${count} creates, server CPU ${cpuMs.toFixed(0)} ms, wall ${load.ms.toFixed(0)} ms`,
        );
        // Round 0 warms the server's code paths up and is not counted.
        if (round > 0) samples[variant].push({ cpuMs, wallMs: load.ms });
      }
    }
    const cpu = (v: keyof typeof kinds): number => median(samples[v].map((s) => s.cpuMs));
    const wall = (v: keyof typeof kinds): number => median(samples[v].map((s) => s.wallMs));
    const cpuRatio = cpu("enforced") / cpu("free");
    return {
      rows: [
        compareDurations(
          `${count} creates, 50-field schema + 3 CEL rules (server CPU)`,
          cpu("enforced"),
          {
            name: "same creates, spec preserving unknown fields",
            ms: cpu("free"),
          },
        ),
        compareDurations(
          `${count} creates, 50-field schema + 3 CEL rules (wall)`,
          wall("enforced"),
          {
            name: "same creates, spec preserving unknown fields",
            ms: wall("free"),
          },
        ),
      ],
      details: {
        count,
        fields: FIELDS,
        celRules: 3,
        concurrency: CONCURRENCY,
        samples: samples as unknown as JsonObject,
        targets: { cpuRatio, maxCpuRatio: TARGET_RATIO, met: cpuRatio <= TARGET_RATIO },
      },
    };
  } finally {
    await pool.close();
    await host.stop();
  }
}

/** See the file header. */
export const benchmark: Benchmark = {
  name: "custom-resources",
  description: "10k custom resource creates with a 50-field schema and 3 CEL rules vs. none",
  timeoutMs: 30 * 60_000,
  run,
};
