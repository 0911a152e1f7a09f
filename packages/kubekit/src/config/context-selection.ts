/**
 * Choosing the context, cluster and user a client uses, with client-go's overrides
 * (`--context`, `--cluster`, `--user`, `--namespace`, `--server`): an override names an
 * entry that must exist; otherwise the current context's references are used, and a
 * reference to a missing cluster or user reads as an empty entry (as in client-go).
 */
import { ConfigError } from "./config-error.js";
import type { AuthInfo, Cluster, Context, KubeconfigData, Located } from "./kubeconfig-types.js";

/** Overrides of what the kubeconfig selects (kubectl's global flags). Empty strings count as unset. */
export interface KubeConfigOverrides {
  /** Use this context instead of `current-context`; it must exist. */
  readonly context?: string;
  /** Use this cluster instead of the context's; it must exist. */
  readonly cluster?: string;
  /** Use this user instead of the context's; it must exist. */
  readonly user?: string;
  /** Use this namespace instead of the context's. */
  readonly namespace?: string;
  /** Use this server URL instead of the cluster's (clears the cluster's `tls-server-name`). */
  readonly server?: string;
}

/** The entries a client uses. Names are "" when nothing is selected. */
export interface ContextSelection {
  readonly contextName: string;
  /** Undefined when no context is selected or `current-context` names a missing one. */
  readonly context: Located<Context> | undefined;
  readonly clusterName: string;
  /** Undefined when no cluster is selected or the context names a missing one. */
  readonly cluster: Located<Cluster> | undefined;
  readonly userName: string;
  /** Undefined when no user is selected or the context names a missing one. */
  readonly user: Located<AuthInfo> | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/**
 * Checks that the context, cluster and user overrides name existing entries.
 *
 * @throws {ConfigError} e.g. `context "staging" does not exist`.
 */
export function checkOverrides(data: KubeconfigData, overrides: KubeConfigOverrides): void {
  const checks = [
    ["context", nonEmpty(overrides.context), data.contexts],
    ["cluster", nonEmpty(overrides.cluster), data.clusters],
    ["user", nonEmpty(overrides.user), data.users],
  ] as const;
  for (const [what, name, entries] of checks) {
    if (name !== undefined && !entries.has(name)) {
      throw new ConfigError(`${what} ${JSON.stringify(name)} does not exist`);
    }
  }
}

/** Selects the context, cluster and user per `overrides` (which {@link checkOverrides} accepted). */
export function selectContext(
  data: KubeconfigData,
  overrides: KubeConfigOverrides,
): ContextSelection {
  const contextName = nonEmpty(overrides.context) ?? data.currentContext;
  const context = contextName === "" ? undefined : data.contexts.get(contextName);
  const clusterName = nonEmpty(overrides.cluster) ?? context?.value.cluster ?? "";
  const userName = nonEmpty(overrides.user) ?? context?.value.user ?? "";
  return {
    contextName,
    context,
    clusterName,
    cluster: clusterName === "" ? undefined : data.clusters.get(clusterName),
    userName,
    user: userName === "" ? undefined : data.users.get(userName),
  };
}

/** The namespace a client uses: the override, else the context's, else `default`. */
export function selectedNamespace(
  selection: ContextSelection,
  overrides: KubeConfigOverrides,
): string {
  return nonEmpty(overrides.namespace) ?? selection.context?.value.namespace ?? "default";
}
