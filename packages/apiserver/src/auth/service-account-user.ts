/**
 * The user names and groups of service accounts, as
 * `staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go` makes them.
 */

/** The prefix of every service account's user name. */
const SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:";
/** The group of every service account. */
export const ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";

/** `system:serviceaccount:NAMESPACE:NAME`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

/**
 * The namespace and name of a service account user name, or undefined when `username` is not
 * one (kube's SplitUsername: exactly two non-empty parts after the prefix).
 */
export function splitServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(":");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") return undefined;
  return { namespace: parts[0] as string, name: parts[1] as string };
}

/** The groups of a service account: `system:serviceaccounts` and `system:serviceaccounts:NS`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}
