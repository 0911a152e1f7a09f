/**
 * Creates through admission webhooks: ConfigMap creates that the embedded server sends through
 * one mutating and one validating webhook (a {@link WebhookServer} over loopback HTTPS, with a
 * CA from `generateWebhookCertificates`), against the same creates in a namespace the webhooks'
 * `namespaceSelector` leaves out. Both namespaces live on one server in a child process of its
 * own (support/host-process.ts), so its CPU time is read beside the wall time of the load; the
 * client (undici, 16 connections) and the webhook server run in this process, whose CPU time
 * is reported too. The rounds alternate between the namespaces after a warm-up round of each.
 *
 * What it shows (issue 20): the price of two webhook calls per create, as a ratio to a create
 * without webhooks, on the server's CPU and on wall time. No target is set: a webhook call is
 * a TLS request the server makes and awaits, as kube-apiserver's; the figures say what it costs
 * here. `KUBEKIT_BENCH_SCALE` (default 1) scales the object count.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type JsonObject,
  WebhookServer,
  mutatingWebhookFor,
  noopLogger,
  validatingWebhookFor,
} from "kubekit";
import { generateWebhookCertificates } from "@kubekit/cluster";
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

const CONCURRENCY = 16;
const ROUNDS = 3;
const SELECTED = { label: "webhooks", value: "on" };

function objectCount(): number {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  return Math.max(20, Math.round(5_000 * scale));
}

function post(path: string, body: JsonObject): WriteRequest {
  return {
    method: "POST",
    path,
    body: JSON.stringify(body),
    contentType: "application/json",
    expectStatus: 201,
    userAgent: BENCH_AGENT,
  };
}

/** The webhook configurations: both select the namespaces labelled {@link SELECTED}. */
function configurations(url: string, caBundle: string): [string, JsonObject][] {
  const webhook = (name: string, path: string): JsonObject => ({
    name,
    clientConfig: { url: `${url}${path}`, caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { [SELECTED.label]: SELECTED.value } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  });
  const group = "/apis/admissionregistration.k8s.io/v1";
  return [
    [
      `${group}/mutatingwebhookconfigurations`,
      {
        metadata: { name: "bench-defaults" },
        webhooks: [webhook("defaults.bench.kubekit.dev", "/mutate")],
      },
    ],
    [
      `${group}/validatingwebhookconfigurations`,
      {
        metadata: { name: "bench-validates" },
        webhooks: [webhook("validates.bench.kubekit.dev", "/validate")],
      },
    ],
  ];
}

/** A server whose defaulting webhook adds a label and whose validating webhook checks it. */
async function startWebhooks(certDir: string): Promise<WebhookServer> {
  const server = new WebhookServer({ port: 0, certDir, logger: noopLogger });
  server.register(
    "/mutate",
    mutatingWebhookFor<JsonObject>({
      default(obj) {
        const meta = (obj["metadata"] ?? {}) as JsonObject;
        meta["labels"] = { ...(meta["labels"] as JsonObject | undefined), defaulted: "true" };
        obj["metadata"] = meta;
      },
    }),
  );
  server.register(
    "/validate",
    validatingWebhookFor<JsonObject>({
      validateCreate(obj) {
        const labels = (obj["metadata"] as JsonObject | undefined)?.["labels"] as
          JsonObject | undefined;
        if (labels?.["defaulted"] !== "true") throw new Error("not defaulted");
      },
    }),
  );
  await server.start();
  return server;
}

interface Sample {
  readonly serverCpuMs: number;
  readonly localCpuMs: number;
  readonly wallMs: number;
}

async function run(context: BenchmarkContext): Promise<BenchmarkResult> {
  const count = objectCount();
  const certDir = await mkdtemp(join(tmpdir(), "kubekit-bench-webhooks-"));
  const certificates = await generateWebhookCertificates({ certDir });
  const webhooks = await startWebhooks(certDir);
  const host = await HostProcess.start("kubekit");
  const pool = connectionPool(host.url, CONCURRENCY);
  try {
    const namespaces = { webhooks: "bench-webhooks", none: "bench-plain" } as const;
    for (const [variant, name] of Object.entries(namespaces)) {
      const labels = variant === "webhooks" ? { [SELECTED.label]: SELECTED.value } : {};
      await sendWrite(
        pool,
        post("/api/v1/namespaces", { metadata: { name, labels } }),
        context.signal,
      );
    }
    for (const [path, body] of configurations(
      `https://127.0.0.1:${webhooks.port}`,
      certificates.caBundle,
    )) {
      await sendWrite(pool, post(path, body), context.signal);
    }
    const samples: Record<keyof typeof namespaces, Sample[]> = { webhooks: [], none: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      for (const variant of round % 2 === 0
        ? (["webhooks", "none"] as const)
        : (["none", "webhooks"] as const)) {
        const namespace = namespaces[variant];
        const cpuBefore = await host.cpu();
        const localBefore = process.cpuUsage();
        const load = await loadWrites(
          pool,
          count,
          CONCURRENCY,
          (n) =>
            post(`/api/v1/namespaces/${namespace}/configmaps`, {
              metadata: { name: `cm-${round}-${n}` },
              data: { n: String(n) },
            }),
          context.signal,
        );
        const local = process.cpuUsage(localBefore);
        const cpuAfter = await host.cpu();
        const serverCpuMs =
          cpuAfter.userMs + cpuAfter.systemMs - (cpuBefore.userMs + cpuBefore.systemMs);
        const localCpuMs = (local.user + local.system) / 1000;
        context.log(
          `round ${round} ${variant}: ${count} creates, server CPU ${serverCpuMs.toFixed(0)} ms, client${variant === "webhooks" ? " + webhooks" : ""} CPU ${localCpuMs.toFixed(0)} ms, wall ${load.ms.toFixed(0)} ms`,
        );
        // Round 0 warms the code paths (and the webhook connections) up and is not counted.
        if (round > 0) samples[variant].push({ serverCpuMs, localCpuMs, wallMs: load.ms });
      }
    }
    const med = (v: keyof typeof namespaces, f: (s: Sample) => number): number =>
      median(samples[v].map(f));
    const baseline = "same creates, no webhook selects the namespace";
    const work = { count, unit: "creates/s" };
    const rows = [
      compareDurations(
        `${count} creates through 1 mutating + 1 validating webhook (server CPU)`,
        med("webhooks", (s) => s.serverCpuMs),
        { name: baseline, ms: med("none", (s) => s.serverCpuMs) },
      ),
      compareDurations(
        `${count} creates through the 2 webhooks (wall, ${CONCURRENCY} connections)`,
        med("webhooks", (s) => s.wallMs),
        { name: baseline, ms: med("none", (s) => s.wallMs) },
        work,
      ),
      compareDurations(
        "client + webhook server CPU (this process)",
        med("webhooks", (s) => s.localCpuMs),
        { name: "client CPU without webhooks", ms: med("none", (s) => s.localCpuMs) },
      ),
    ];
    return {
      rows,
      details: {
        count,
        concurrency: CONCURRENCY,
        samples: samples as unknown as JsonObject,
        ratios: {
          serverCpu: rows[0]!.ratio ?? null,
          wall: rows[1]!.ratio ?? null,
        },
      },
    };
  } finally {
    await pool.close();
    await host.stop();
    await webhooks.stop();
    await rm(certDir, { recursive: true, force: true });
  }
}

/** See the file header. */
export const benchmark: Benchmark = {
  name: "webhooks",
  description: "ConfigMap creates through one mutating and one validating webhook vs. none",
  timeoutMs: 30 * 60_000,
  run,
};
