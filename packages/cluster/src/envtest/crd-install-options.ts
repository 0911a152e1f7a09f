/**
 * What `installCrds` and `uninstallCrds` take: where the CRDs go (a kubeconfig, or an embedded
 * server), which CRDs (files and directories, or objects), and how long to wait.
 */
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { Clientset, DiscoveryClient, realClock, type Clock, type KubeConfig } from "kubekit";
import { checkCrdManifest, readCrdManifests } from "../generate/crd-manifests.js";

/**
 * Options of `installCrds` and `uninstallCrds` (envtest's `CRDInstallOptions`). Give the cluster
 * as `kubeConfig` or `server`, and the CRDs as `paths`, `crds`, or both.
 */
export interface CrdInstallOptions {
  /** Credentials of the cluster (any API server, a real cluster included). */
  readonly kubeConfig?: KubeConfig;
  /** An embedded API server (`ApiServer`), or anything with its `kubeConfig()`. */
  readonly server?: { kubeConfig(): KubeConfig };
  /** CRD manifest files and directories (a directory's `.yaml`, `.yml` and `.json` files). */
  readonly paths?: readonly string[];
  /** CRD objects. */
  readonly crds?: readonly CustomResourceDefinition[];
  /** Aborts the requests and the wait (rejecting with `signal.reason`). */
  readonly signal?: AbortSignal;
  /** How long to wait for every CRD (default 10 s, envtest's `MaxTime`). */
  readonly timeoutMs?: number;
  /** How often to check (default 100 ms, envtest's `PollInterval`). */
  readonly pollIntervalMs?: number;
  /** The clock of the polls and the deadline (default: the real clock). */
  readonly clock?: Clock;
}

/** envtest's `defaultMaxWait` and `defaultPollInterval` (`pkg/envtest/crd.go`). */
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_POLL_INTERVAL_MS = 100;

/** The options resolved: clients of the cluster, the CRDs, the wait's settings. */
export interface CrdInstallPlan {
  readonly clientset: Clientset;
  readonly discovery: DiscoveryClient;
  readonly crds: readonly CustomResourceDefinition[];
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
  readonly clock: Clock;
}

/** A non-negative finite option, or its default. */
function durationOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
  return value;
}

/**
 * Resolves the options: reads and checks the CRD files, checks the objects.
 *
 * @throws {TypeError} when neither `kubeConfig` nor `server` is given.
 * @throws {RangeError} for a negative or non-finite duration.
 * @throws {CrdManifestError} for a file that cannot be read or is not a CRD (naming it).
 */
export async function resolveCrdInstallOptions(
  options: CrdInstallOptions,
): Promise<CrdInstallPlan> {
  const kubeConfig = options.kubeConfig ?? options.server?.kubeConfig();
  if (kubeConfig === undefined) throw new TypeError("give the cluster as kubeConfig or server");
  const timeoutMs = durationOption("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const pollIntervalMs = durationOption(
    "pollIntervalMs",
    options.pollIntervalMs,
    DEFAULT_POLL_INTERVAL_MS,
  );
  const fromFiles = await readCrdManifests(options.paths ?? []);
  const crds = [
    ...fromFiles.map((manifest) => manifest.crd),
    ...(options.crds ?? []).map((crd, i) => checkCrdManifest(crd, `crds[${i}]`)),
  ];
  const restConfig = kubeConfig.restConfig();
  return {
    clientset: new Clientset(restConfig),
    discovery: new DiscoveryClient(restConfig),
    crds,
    signal: options.signal,
    timeoutMs,
    pollIntervalMs,
    clock: options.clock ?? realClock,
  };
}
