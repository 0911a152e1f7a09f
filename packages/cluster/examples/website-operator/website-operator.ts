/**
 * An operator for the `Website` custom resource (website-crd.yaml), written with the types and
 * accessors `kubekit generate crd` produced from its CRD (generated/example.com/v1.ts): for each
 * Website it keeps a Deployment running nginx with the site's image and a Service in front of
 * it, both owned by the Website through a controller ownerReference, and reports in the
 * Website's status (written through its `/status` subresource) how many replicas are
 * available and a `Ready` condition. A finalizer makes deleting a Website wait until the
 * operator has deleted its Deployment and Service. Given a `WebhookServer`, the Manager also
 * serves the Website's defaulting and validating webhooks (website-webhooks.ts).
 *
 * The typed path end to end: `websites(clientset, ns)` is a `ResourceClient<Website>`,
 * `websiteInformer(factory)` a shared informer with a `NamespacedResourceLister<Website>`;
 * a field typo in this file is a compile error, not a failed reconcile.
 */
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Service } from "kubernetes-types/core/v1.js";
import {
  type Clientset,
  type KubeConfig,
  type Logger,
  type Reconciler,
  type WebhookServer,
  Controller,
  Manager,
  SharedInformerFactory,
  createOrUpdate,
  isConflict,
  isNotFound,
  reconcileWithFinalizer,
  setControllerReference,
  setStatusCondition,
  splitKey,
} from "kubekit";
import {
  type Website,
  type WebsiteStatus,
  websiteInformer,
  websites,
} from "./generated/example.com/v1.js";
import { registerWebsiteWebhooks } from "./website-webhooks.js";

/** The finalizer the operator puts on every Website it manages. */
export const WEBSITE_FINALIZER = "example.com/website-cleanup";

/** The label every object of a Website carries, naming the Website. */
export const WEBSITE_LABEL = "example.com/website";

/** The owner type of the Deployments and Services (the `group/kind` of `Website`). */
const OWNER = { apiVersion: "example.com/v1", kind: "Website" };

/** The Service port when `spec.port` is not set. */
const DEFAULT_PORT = 80;

/** The Deployment a Website asks for, without its owner reference. */
export function desiredDeployment(website: Website): Deployment {
  const name = website.metadata?.name ?? "";
  const labels = { [WEBSITE_LABEL]: name };
  const resources =
    website.spec?.tier === "large"
      ? { requests: { cpu: "500m", memory: "256Mi" } }
      : { requests: { cpu: "100m", memory: "64Mi" } };
  return {
    metadata: { name, namespace: website.metadata?.namespace, labels },
    spec: {
      replicas: website.spec?.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: "nginx",
              image: website.spec?.image ?? "nginx",
              ports: [{ name: "http", containerPort: 80 }],
              resources,
            },
          ],
        },
      },
    },
  };
}

/** The Service a Website asks for, without its owner reference. */
export function desiredService(website: Website): Service {
  const name = website.metadata?.name ?? "";
  const port = website.spec?.port ?? DEFAULT_PORT;
  return {
    metadata: { name, namespace: website.metadata?.namespace, labels: { [WEBSITE_LABEL]: name } },
    spec: {
      selector: { [WEBSITE_LABEL]: name },
      ports: [
        { name: "http", port: typeof port === "number" ? port : DEFAULT_PORT, targetPort: "http" },
      ],
    },
  };
}

/**
 * The status a Website should have given its Deployment: available replicas, the URL, and a
 * `Ready` condition (True once every replica of the current generation is available).
 * Returns undefined when the status already says so.
 */
export function nextStatus(website: Website, deployment: Deployment): WebsiteStatus | undefined {
  const status: WebsiteStatus = structuredClone(website.status ?? {});
  const desired = deployment.spec?.replicas ?? 1;
  const available = deployment.status?.availableReplicas ?? 0;
  const current =
    (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
  const ready = current && available >= desired;
  const port = desiredService(website).spec?.ports?.[0]?.port ?? DEFAULT_PORT;
  const next: WebsiteStatus = {
    ...status,
    observedGeneration: website.metadata?.generation ?? 0,
    availableReplicas: available,
    url: `http://${website.metadata?.name}.${website.metadata?.namespace}.svc:${port}`,
    conditions: status.conditions ?? [],
  };
  const conditions = next.conditions ?? [];
  const changed = setStatusCondition(conditions, {
    type: "Ready",
    status: ready ? "True" : "False",
    reason: ready ? "Available" : "Progressing",
    message: `${available} of ${desired} replicas available`,
    observedGeneration: website.metadata?.generation ?? 0,
  });
  const same =
    !changed &&
    status.observedGeneration === next.observedGeneration &&
    status.availableReplicas === next.availableReplicas &&
    status.url === next.url;
  return same ? undefined : next;
}

/**
 * Makes `deployment` (as stored, or new) what the Website asks for, touching only the fields
 * the operator owns, so that an unchanged Deployment is not written again.
 */
export function convergeDeployment(website: Website, deployment: Deployment): void {
  const wanted = desiredDeployment(website);
  const container = deployment.spec?.template?.spec?.containers.find((c) => c.name === "nginx");
  const wantedContainer = wanted.spec?.template?.spec?.containers[0];
  if (deployment.spec === undefined || container === undefined || wantedContainer === undefined) {
    deployment.spec = wanted.spec;
  } else {
    deployment.spec.replicas = wanted.spec?.replicas;
    container.image = wantedContainer.image;
    container.resources = wantedContainer.resources;
  }
  deployment.metadata = { ...deployment.metadata, labels: wanted.metadata?.labels };
  setControllerReference(website, deployment, OWNER);
}

/** Makes `service` (as stored, or new) what the Website asks for (its selector and port). */
export function convergeService(website: Website, service: Service): void {
  const wanted = desiredService(website);
  const [port] = wanted.spec?.ports ?? [];
  const stored = service.spec?.ports ?? [];
  // The API server fills in each port's protocol: compare only the fields the operator sets.
  const same =
    stored.length === 1 &&
    stored[0]?.name === port?.name &&
    stored[0]?.port === port?.port &&
    stored[0]?.targetPort === port?.targetPort;
  service.spec = {
    ...service.spec,
    selector: wanted.spec?.selector,
    ports: same ? stored : wanted.spec?.ports,
  };
  service.metadata = { ...service.metadata, labels: wanted.metadata?.labels };
  setControllerReference(website, service, OWNER);
}

/** Deletes an owned object by name; an object already gone counts as deleted. */
async function deleteIfPresent(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Options of {@link websiteOperator}. */
export interface WebsiteOperatorOptions {
  /** The cluster the operator manages Websites of. */
  readonly kubeConfig: KubeConfig;
  /** The namespace it watches (default: every namespace). */
  readonly namespace?: string;
  readonly logger?: Logger;
  /**
   * The server of the Website's admission webhooks (webhook/website-webhooks.yaml registers
   * them with the API server); run by the Manager. Default: no webhooks served.
   */
  readonly webhookServer?: WebhookServer;
}

/** The reconcile of one Website key: cleanup when it is being deleted, else converge. */
function websiteReconciler(
  clientset: Clientset,
  lister: ReturnType<typeof websiteInformer>["lister"],
): Reconciler {
  return async (key, signal) => {
    const { namespace, name } = splitKey(key);
    let website: Website;
    try {
      website = lister.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return; // deleted: the finalizer already cleaned up
      throw err;
    }
    const client = websites(clientset, namespace);
    return reconcileWithFinalizer({
      client,
      finalizer: WEBSITE_FINALIZER,
      object: website,
      signal,
      apply: async (current) => {
        const deployment: Deployment = { metadata: { name, namespace } };
        await createOrUpdate(
          clientset.appsV1.deployments(namespace),
          deployment,
          (d) => convergeDeployment(current, d),
          { signal },
        );
        const service: Service = { metadata: { name, namespace } };
        await createOrUpdate(
          clientset.coreV1.services(namespace),
          service,
          (s) => convergeService(current, s),
          { signal },
        );
        // `deployment` is now the Deployment as stored, with its status.
        const status = nextStatus(current, deployment);
        if (status === undefined) return undefined;
        try {
          await client.updateStatus({ ...current, status }, { signal });
        } catch (err) {
          // The Website changed since it was read (the informer brings the new version):
          // compute the status again from it, without logging an error.
          if (isConflict(err)) return { requeue: true };
          throw err;
        }
        return undefined;
      },
      cleanup: async () => {
        // No garbage collector runs in every cluster a test uses: delete what the Website owns.
        await deleteIfPresent(() =>
          clientset.appsV1.deployments(namespace).delete(name, { signal }),
        );
        await deleteIfPresent(() => clientset.coreV1.services(namespace).delete(name, { signal }));
      },
    });
  };
}

/**
 * The Website operator as a Manager running one controller: it watches Websites, and the
 * Deployments and Services they own (their controller's key), in `namespace`, and the
 * `webhookServer` with the Website's webhooks registered, when one is given. Start it with
 * `manager.start(signal)`; it runs until the signal aborts.
 */
export function websiteOperator(options: WebsiteOperatorOptions): Manager {
  const manager = new Manager({
    kubeConfig: options.kubeConfig,
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const clientset = manager.clientset;
  const factory = new SharedInformerFactory(clientset, {
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });
  const sites = websiteInformer(factory);
  const controller = new Controller({
    name: "website",
    workers: 2,
    reconcile: websiteReconciler(clientset, sites.lister),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  controller.watch(sites.informer);
  controller.watchOwned(factory.appsV1.deployments().informer, {
    group: "example.com",
    kind: "Website",
  });
  controller.watchOwned(factory.coreV1.services().informer, {
    group: "example.com",
    kind: "Website",
  });
  manager.add(factory);
  manager.add(controller);
  if (options.webhookServer !== undefined) {
    registerWebsiteWebhooks(options.webhookServer);
    manager.add(options.webhookServer);
  }
  return manager;
}
