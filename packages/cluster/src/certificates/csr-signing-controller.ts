import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.js";
import { Controller, isConflict, isNotFound, type ReconcileResult, type Runnable } from "kubekit";
import { errorMessage, formatTime } from "kubekit/apimachinery";
import type { ClusterContext } from "../cluster-context.js";

/** The signers this controller issues for (kube's kube-apiserver client signers). */
export const CSR_SIGNERS: readonly string[] = [
  "kubernetes.io/kube-apiserver-client",
  "kubernetes.io/kube-apiserver-client-kubelet",
];

/** Whether `csr` has a condition of `type` with status True. */
function hasTrueCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
}

/**
 * Whether the signer acts on `csr` (`signer.go` handle): one of {@link CSR_SIGNERS}, Approved,
 * not Failed, and not issued yet.
 */
export function awaitsSigning(csr: CertificateSigningRequest): boolean {
  return (
    CSR_SIGNERS.includes(csr.spec?.signerName ?? "") &&
    hasTrueCondition(csr, "Approved") &&
    !hasTrueCondition(csr, "Failed") &&
    (csr.status?.certificate ?? "") === ""
  );
}

/** A Runnable that does nothing until the cluster stops. */
const idle: Runnable = {
  run: (signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    }),
};

/**
 * kube-controller-manager's `csrsigning` controller (`pkg/controller/certificates/signer/`)
 * for `kubernetes.io/kube-apiserver-client` and `kubernetes.io/kube-apiserver-client-kubelet`,
 * written with kubekit's Controller: an Approved CertificateSigningRequest that is not Failed
 * and has no certificate yet gets `status.certificate` (PEM, base64 on the wire) issued from
 * the API server's CA through {@link ClusterContext.signCertificate} — the CSR's subject and
 * SANs, its usages, `spec.expirationSeconds` honoured (at least 600 s, at most one year). A
 * request the signer refuses (usages or subject its signer does not allow, an unparsable
 * request) gets the condition `Failed` (reason `SignerValidationFailure`, kube's message)
 * instead. Denied and other signers' CSRs are left alone. Against a server without a CA the
 * cluster can use (by kubeconfig, or without TLS) the controller runs idle.
 */
export function csrSigningController(ctx: ClusterContext): Runnable {
  const sign = ctx.signCertificate;
  if (sign === undefined) return idle;
  const client = ctx.clientset("kube-controller-manager");
  const requests = ctx.factory.certificatesV1.certificateSigningRequests();

  const writeStatus = async (
    csr: CertificateSigningRequest,
    status: CertificateSigningRequest["status"],
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> => {
    try {
      await client.certificatesV1.certificateSigningRequests().updateStatus(
        {
          ...csr,
          apiVersion: "certificates.k8s.io/v1",
          kind: "CertificateSigningRequest",
          status,
        },
        { signal },
      );
    } catch (err) {
      if (isConflict(err)) return { requeue: true };
      if (isNotFound(err)) return;
      throw err;
    }
  };

  const reconcile = async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    let csr: CertificateSigningRequest;
    try {
      csr = requests.lister.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!awaitsSigning(csr)) return;
    const pem = Buffer.from(csr.spec.request, "base64").toString("utf8");
    let certificate: string;
    try {
      certificate = await sign(pem, {
        signerName: csr.spec.signerName,
        usages: csr.spec.usages ?? [],
        ...(csr.spec.expirationSeconds !== undefined
          ? { expirationSeconds: csr.spec.expirationSeconds }
          : {}),
      });
    } catch (err) {
      const now = formatTime(ctx.clock.now());
      return writeStatus(
        csr,
        {
          ...csr.status,
          conditions: [
            ...(csr.status?.conditions ?? []),
            {
              type: "Failed",
              status: "True",
              reason: "SignerValidationFailure",
              message: errorMessage(err),
              lastUpdateTime: now,
              lastTransitionTime: now,
            },
          ],
        },
        signal,
      );
    }
    return writeStatus(
      csr,
      { ...csr.status, certificate: Buffer.from(certificate).toString("base64") },
      signal,
    );
  };

  const controller = new Controller({
    name: "csrsigning",
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(requests.informer);
  return controller;
}
