/**
 * The token controller's part for legacy tokens, run in the server because the signing key
 * never leaves it (kube-controller-manager's `pkg/controller/serviceaccount/tokens_controller.go`):
 * a `kubernetes.io/service-account-token` Secret naming an existing service account in its
 * `kubernetes.io/service-account.name` annotation, and without `data.token`, gets a legacy
 * JWT (issuer `kubernetes/serviceaccount`) in `data.token`, its namespace in `data.namespace`,
 * and the service account's uid in the `kubernetes.io/service-account.uid` annotation.
 */
import type { JsonObject } from "kubekit";
import { annotationOf, isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { DeferredWork } from "../../controllers/controller-runner.js";
import type { ServerContext } from "../../server/server-context.js";
import type { StorageEvent } from "../../storage/storage.js";
import { ResourceOperations } from "../../store/resource-operations.js";
import type { ServiceAccountTokens } from "./service-account-tokens.js";

const SECRET_TYPE = "kubernetes.io/service-account-token";
const NAME_ANNOTATION = "kubernetes.io/service-account.name";
const UID_ANNOTATION = "kubernetes.io/service-account.uid";

/** Fills legacy token Secrets. */
export class LegacyTokenController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;
  readonly #tokens: ServiceAccountTokens;

  constructor(ctx: ServerContext, work: DeferredWork, tokens: ServiceAccountTokens) {
    this.#ctx = ctx;
    this.#work = work;
    this.#tokens = tokens;
  }

  /** Storage listener: a token Secret without a token is filled. */
  onEvent(event: StorageEvent): void {
    if (event.resource !== "/secrets" || event.type === "DELETED") return;
    if (!needsToken(event.object)) return;
    this.#work.schedule(`legacy-token:${event.key}`, () => void this.#fill(event.key));
  }

  async #fill(key: string): Promise<void> {
    const secret = this.#ctx.storage.get("/secrets", key);
    if (!secret || !needsToken(secret)) return;
    const meta = metadataOf(secret) ?? {};
    const namespace = String(meta["namespace"] ?? "");
    const accountName = annotationOf(secret, NAME_ANNOTATION) ?? "";
    const account = this.#ctx.storage.get("/serviceaccounts", `${namespace}/${accountName}`);
    if (!account) return;
    const uid = String(metadataOf(account)?.["uid"] ?? "");
    const token = await this.#tokens.issueLegacy(
      namespace,
      { name: accountName, uid },
      String(meta["name"]),
    );
    const current = this.#ctx.storage.get("/secrets", key);
    const entry = this.#ctx.registry.lookup("", "v1", "secrets");
    if (!current || !needsToken(current) || !entry) return;
    const currentMeta = metadataOf(current) ?? {};
    const annotations = isJsonObject(currentMeta["annotations"]) ? currentMeta["annotations"] : {};
    const data = isJsonObject(current["data"]) ? current["data"] : {};
    const filled: JsonObject = {
      ...current,
      metadata: { ...currentMeta, annotations: { ...annotations, [UID_ANNOTATION]: uid } },
      data: {
        ...data,
        namespace: Buffer.from(namespace).toString("base64"),
        token: Buffer.from(token).toString("base64"),
      },
    };
    try {
      new ResourceOperations(this.#ctx).update(entry, namespace, String(meta["name"]), filled, {
        dryRun: false,
        fieldManager: "kube-controller-manager",
        fieldValidation: "Ignore",
        warnings: [],
        subresource: "",
        isPatch: true,
      });
    } catch {
      // The Secret changed or went away meanwhile; its next event retries.
    }
  }
}

function needsToken(secret: JsonObject): boolean {
  if (secret["type"] !== SECRET_TYPE) return false;
  if (!annotationOf(secret, NAME_ANNOTATION)) return false;
  if (metadataOf(secret)?.["deletionTimestamp"]) return false;
  const data = isJsonObject(secret["data"]) ? secret["data"] : {};
  return typeof data["token"] !== "string" || data["token"] === "";
}
