/**
 * Installing webhook configurations for a test (envtest's `WebhookInstallOptions`,
 * `pkg/envtest/webhook.go`: `Install` creates the configurations with the test CA's bundle,
 * pointing at the local serving host and port, then `WaitForWebhooks` polls until each is
 * there).
 */
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "kubernetes-types/admissionregistration/v1.js";
import {
  Clientset,
  isAlreadyExists,
  isNotFound,
  realClock,
  type Clock,
  type KubeConfig,
} from "kubekit";
import { withCaBundle } from "./webhook-ca-bundle.js";

/** Options of {@link installWebhooks}. */
export interface WebhookInstallOptions {
  /** Credentials of the cluster. */
  readonly kubeConfig?: KubeConfig;
  /** An embedded API server (`ApiServer`), or anything with its `kubeConfig()`. */
  readonly server?: { kubeConfig(): KubeConfig };
  /** The ValidatingWebhookConfigurations to create (`kind` and `apiVersion` may be left out). */
  readonly validating?: readonly ValidatingWebhookConfiguration[];
  /** The MutatingWebhookConfigurations to create (`kind` and `apiVersion` may be left out). */
  readonly mutating?: readonly MutatingWebhookConfiguration[];
  /** The CA (PEM, or a base64 `caBundle`) written into every webhook's `clientConfig`. */
  readonly ca: string;
  /**
   * Point every webhook at this base URL (e.g. `https://127.0.0.1:${server.port}`): a
   * `service` becomes `url: <baseUrl><service.path>`. Default: the clientConfigs as given.
   */
  readonly baseUrl?: string;
  /** Aborts the requests and the wait. */
  readonly signal?: AbortSignal;
  /** How long to wait until every configuration is visible (default 10 s, envtest's `MaxTime`). */
  readonly timeoutMs?: number;
  /** How often to check (default 100 ms, envtest's `PollInterval`). */
  readonly pollIntervalMs?: number;
  /** The clock of the polls and the deadline (default: the real clock). */
  readonly clock?: Clock;
}

/** The configurations installed, as the API server stored them. */
export interface InstalledWebhooks {
  /** The ValidatingWebhookConfigurations, in the order given. */
  readonly validating: ValidatingWebhookConfiguration[];
  /** The MutatingWebhookConfigurations, in the order given. */
  readonly mutating: MutatingWebhookConfiguration[];
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_POLL_INTERVAL_MS = 100;

/** What {@link installWebhooks} does with one kind of configuration. */
interface ConfigurationClient<T> {
  create(obj: T, options: { signal?: AbortSignal }): Promise<T>;
  get(name: string, options: { signal?: AbortSignal }): Promise<T>;
  update(obj: T, options: { signal?: AbortSignal }): Promise<T>;
}

/** Creates `obj`, or replaces the one of its name already there. */
async function createOrReplace<
  T extends ValidatingWebhookConfiguration | MutatingWebhookConfiguration,
>(client: ConfigurationClient<T>, obj: T, signal: AbortSignal | undefined): Promise<T> {
  const options = signal !== undefined ? { signal } : {};
  try {
    return await client.create(obj, options);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await client.get(obj.metadata?.name ?? "", options);
    const resourceVersion = existing.metadata?.resourceVersion;
    return client.update({ ...obj, metadata: { ...obj.metadata, resourceVersion } }, options);
  }
}

/**
 * Creates (or replaces) the webhook configurations with `ca` as every webhook's `caBundle`
 * (and, with `baseUrl`, pointing at the local webhook server), then waits until each can be
 * read back, so that the API server calls the webhooks from the next request on.
 *
 * @throws {TypeError} when neither `kubeConfig` nor `server` is given.
 * @throws {Error} naming the configurations not visible after `timeoutMs`; the API's errors as
 *   they are.
 */
export async function installWebhooks(options: WebhookInstallOptions): Promise<InstalledWebhooks> {
  const kubeConfig = options.kubeConfig ?? options.server?.kubeConfig();
  if (kubeConfig === undefined) throw new TypeError("give the cluster as kubeConfig or server");
  const clientset = new Clientset(kubeConfig.restConfig());
  const group = clientset.admissionregistrationV1;
  const inject = { ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}) };
  const validating: ValidatingWebhookConfiguration[] = [];
  const mutating: MutatingWebhookConfiguration[] = [];
  try {
    for (const config of options.validating ?? []) {
      const obj = withCaBundle(
        { ...config, kind: "ValidatingWebhookConfiguration" },
        options.ca,
        inject,
      );
      validating.push(
        await createOrReplace(group.validatingWebhookConfigurations(), obj, options.signal),
      );
    }
    for (const config of options.mutating ?? []) {
      const obj = withCaBundle(
        { ...config, kind: "MutatingWebhookConfiguration" },
        options.ca,
        inject,
      );
      mutating.push(
        await createOrReplace(group.mutatingWebhookConfigurations(), obj, options.signal),
      );
    }
    await waitUntilVisible(clientset, validating, mutating, options);
  } finally {
    await clientset.restClient.transport.close();
  }
  return { validating, mutating };
}

/** envtest's `WaitForWebhooks`: polls until every configuration can be read. */
async function waitUntilVisible(
  clientset: Clientset,
  validating: readonly ValidatingWebhookConfiguration[],
  mutating: readonly MutatingWebhookConfiguration[],
  options: WebhookInstallOptions,
): Promise<void> {
  const clock = options.clock ?? realClock;
  const deadline = clock.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const request = options.signal !== undefined ? { signal: options.signal } : {};
  const group = clientset.admissionregistrationV1;
  const pending = new Map<string, () => Promise<unknown>>([
    ...validating.map((c) => {
      const name = c.metadata?.name ?? "";
      return [
        `ValidatingWebhookConfiguration ${name}`,
        () => group.validatingWebhookConfigurations().get(name, request),
      ] as const;
    }),
    ...mutating.map((c) => {
      const name = c.metadata?.name ?? "";
      return [
        `MutatingWebhookConfiguration ${name}`,
        () => group.mutatingWebhookConfigurations().get(name, request),
      ] as const;
    }),
  ]);
  for (;;) {
    for (const [what, get] of pending) {
      try {
        await get();
        pending.delete(what);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (pending.size === 0) return;
    if (clock.now() >= deadline) {
      throw new Error(
        `webhook configurations not visible after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms: ${[...pending.keys()].join(", ")}`,
      );
    }
    await clock.sleep(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, options.signal);
  }
}
