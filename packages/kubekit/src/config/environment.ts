/**
 * The process environment as an injectable value: the config layer reads `KUBECONFIG`,
 * `HOME`, `KUBERNETES_MASTER`, `KUBERNETES_SERVICE_HOST/PORT` and `POD_NAMESPACE` from it and
 * passes it to exec plugins, so tests can supply their own.
 */

/** Environment variables, like `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The value of `name` when it is set and non-empty (client-go treats empty as unset). */
export function envValue(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}
