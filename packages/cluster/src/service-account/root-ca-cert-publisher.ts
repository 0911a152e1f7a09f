import type { ConfigMap, Namespace } from "kubernetes-types/core/v1.js";
import { deepEqual } from "kubekit/apimachinery";
import { Controller, isNotFound } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";

/** The ConfigMap every namespace gets (`RootCACertConfigMapName`). */
export const ROOT_CA_CONFIG_MAP_NAME = "kube-root-ca.crt";
/** The annotation describing the ConfigMap's use (`DescriptionAnnotation`). */
export const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
/** kube's description of the ConfigMap (`Description`). */
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

/**
 * kube-controller-manager's root-ca-cert-publisher
 * (`pkg/controller/certificates/rootcacertpublisher/publisher.go`), written with kubekit's
 * Controller: every namespace holds a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA
 * that signed the API server's certificate (`caPem`), annotated with kube's
 * `kubernetes.io/description`. It is created when a namespace appears (or becomes Active
 * again), put back when deleted, and restored when changed: `data` is replaced whole (as kube
 * does), other annotations are kept. A create refused because the namespace is gone or
 * terminating is dropped; a conflict retries with back-off. Reconciles by namespace name.
 */
export function rootCaCertPublisher(ctx: ClusterContext, caPem: string): Controller {
  const client = ctx.clientset("kube-controller-manager");
  const namespaces = ctx.factory.coreV1.namespaces();
  const configMaps = ctx.factory.coreV1.configMaps();
  const data = { "ca.crt": caPem };

  const reconcile = async (namespace: string, signal: AbortSignal): Promise<void> => {
    let current: ConfigMap;
    try {
      current = configMaps.lister.configMaps(namespace).get(ROOT_CA_CONFIG_MAP_NAME);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await client.coreV1.configMaps(namespace).create(
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
              name: ROOT_CA_CONFIG_MAP_NAME,
              annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
            },
            data,
          },
          { signal },
        );
      } catch (createErr) {
        // Don't retry a create into a namespace that is gone or terminating.
        if (isNotFound(createErr) || isNamespaceTerminating(createErr)) return;
        throw createErr;
      }
      return;
    }
    const annotations = current.metadata?.annotations ?? {};
    if (deepEqual(current.data ?? {}, data) && (annotations[DESCRIPTION_ANNOTATION] ?? "") !== "") {
      return;
    }
    await client.coreV1.configMaps(namespace).update(
      {
        ...current,
        metadata: {
          ...current.metadata,
          annotations: { ...annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
        },
        data,
      },
      { signal },
    );
  };

  const controller = new Controller({
    name: "root_ca_cert_publisher",
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  // Namespaces added, or updated while Active.
  controller.watch(namespaces.informer, {
    predicates: [{ update: (_old: Namespace, next: Namespace) => next.status?.phase === "Active" }],
  });
  // The ConfigMap changed or deleted: its namespace.
  controller.watch(configMaps.informer, {
    map: (cm: ConfigMap) =>
      cm.metadata?.name === ROOT_CA_CONFIG_MAP_NAME ? [cm.metadata.namespace ?? ""] : [],
    predicates: [{ create: () => false }],
  });
  return controller;
}
