import type { Namespace, ServiceAccount } from "kubernetes-types/core/v1.js";
import { namespaceOf } from "kubekit/apimachinery";
import { Controller, isAlreadyExists, isNotFound, type Runnable } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import { rootCaCertPublisher } from "./root-ca-cert-publisher.js";

/** The ServiceAccounts every namespace gets (kube-controller-manager's default list). */
const SERVICE_ACCOUNTS_TO_ENSURE = ["default"];

/**
 * kube-controller-manager's `serviceaccount` controller
 * (`pkg/controller/serviceaccount/serviceaccounts_controller.go`) with, as part of the same
 * component, the root-ca-cert-publisher (see {@link rootCaCertPublisher}), both written with
 * kubekit's Controller:
 *
 * - Every Active namespace has a ServiceAccount `default`: created when the namespace appears
 *   and re-created when someone deletes it. Nothing is created in a namespace that is not
 *   Active (Terminating); a create the API server refuses because the namespace is
 *   terminating is dropped, one that finds the account already there is fine.
 * - Every namespace has the ConfigMap `kube-root-ca.crt` with the server's CA, when the server
 *   serves HTTPS (`settings.caPem`); a plain-HTTP server has no CA to publish, so
 *   the publisher does not run then.
 *
 * Reconciles by namespace name, from the caches of Namespaces and ServiceAccounts.
 * TokenRequests (`kubectl create token`) are served by the API server itself.
 */
export function serviceAccountController(ctx: ClusterContext): Runnable {
  const controllers = [serviceAccounts(ctx)];
  const caPem = ctx.settings.caPem;
  if (caPem !== undefined) controllers.push(rootCaCertPublisher(ctx, caPem));
  return {
    run: async (signal) => {
      await Promise.all(controllers.map((c) => c.run(signal)));
    },
  };
}

/** The ServiceAccount half of {@link serviceAccountController}. */
function serviceAccounts(ctx: ClusterContext): Controller {
  const client = ctx.clientset("kube-controller-manager");
  const namespaces = ctx.factory.coreV1.namespaces();
  const accounts = ctx.factory.coreV1.serviceAccounts();

  const reconcile = async (name: string, signal: AbortSignal): Promise<void> => {
    let namespace: Namespace;
    try {
      namespace = namespaces.lister.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    // A namespace that is not Active gets nothing new.
    if (namespace.status?.phase !== "Active") return;
    for (const accountName of SERVICE_ACCOUNTS_TO_ENSURE) {
      try {
        accounts.lister.serviceAccounts(name).get(accountName);
        continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const account: ServiceAccount = {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: accountName },
      };
      try {
        await client.coreV1.serviceAccounts(name).create(account, { signal });
      } catch (err) {
        if (!isAlreadyExists(err) && !isNamespaceTerminating(err)) throw err;
      }
    }
  };

  const controller = new Controller({
    name: "serviceaccount",
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(namespaces.informer);
  // A deleted ServiceAccount: its namespace (kube's serviceAccountDeleted).
  controller.watch(accounts.informer, {
    map: (sa: ServiceAccount) => [namespaceOf(sa)],
    predicates: [{ create: () => false, update: () => false }],
  });
  return controller;
}
