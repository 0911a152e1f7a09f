/**
 * Merging of several kubeconfig files with kubectl's rules (client-go's
 * `ClientConfigLoadingRules.Load`): the first file that defines a cluster, user, context or
 * extension name wins, entirely (entries are never merged field by field); for scalar fields
 * (`current-context`, `preferences.colors`) the first file that sets a non-empty value wins.
 */
import type { JsonValue } from "../core/json.js";
import { emptyKubeconfig } from "./kubeconfig-decode.js";
import type { AuthInfo, Cluster, Context, KubeconfigData, Located } from "./kubeconfig-types.js";

/** Adds the keys of `from` that `into` does not have yet. */
function addMissing<V>(into: Map<string, V>, from: ReadonlyMap<string, V>): void {
  for (const [key, value] of from) if (!into.has(key)) into.set(key, value);
}

/**
 * Merges `configs` in precedence order (the first has the highest precedence). Each entry
 * keeps its origin file, so relative paths still resolve against the file that named them.
 * No configs yield an empty kubeconfig.
 */
export function mergeKubeconfigs(configs: readonly KubeconfigData[]): KubeconfigData {
  if (configs.length === 0) return emptyKubeconfig();
  if (configs.length === 1 && configs[0] !== undefined) return configs[0];
  const clusters = new Map<string, Located<Cluster>>();
  const users = new Map<string, Located<AuthInfo>>();
  const contexts = new Map<string, Located<Context>>();
  const preferenceExtensions = new Map<string, JsonValue>();
  const extensions = new Map<string, JsonValue>();
  let currentContext = "";
  let colors = false;
  for (const config of configs) {
    addMissing(clusters, config.clusters);
    addMissing(users, config.users);
    addMissing(contexts, config.contexts);
    addMissing(preferenceExtensions, config.preferences.extensions);
    addMissing(extensions, config.extensions);
    if (currentContext === "") currentContext = config.currentContext;
    colors ||= config.preferences.colors;
  }
  return {
    clusters,
    users,
    contexts,
    currentContext,
    preferences: { colors, extensions: preferenceExtensions },
    extensions,
  };
}
