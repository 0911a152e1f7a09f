import { StatusError } from "kubekit";

/**
 * Whether a write failed because its namespace is being deleted: kube-apiserver's
 * NamespaceLifecycle admission answers 403 Forbidden with the cause `NamespaceTerminating`
 * (client-go's `apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)`). kube's
 * controllers drop such a create instead of retrying it: the namespace's content is going.
 */
export function isNamespaceTerminating(err: unknown): boolean {
  return (
    err instanceof StatusError &&
    (err.status.details?.causes ?? []).some((cause) => cause.reason === "NamespaceTerminating")
  );
}
