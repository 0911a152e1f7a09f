/**
 * The claims of service-account tokens, as kube writes them: bound tokens
 * (`pkg/serviceaccount/claims.go` Claims) and legacy Secret-based tokens
 * (`pkg/serviceaccount/legacy.go` LegacyClaims). go-jose merges the public and private claims
 * through a Go map, so every object's keys come out sorted; so do they here.
 */
import type { JsonObject } from "kubekit";
import { serviceAccountUsername } from "../service-account-user.js";

/** The issuer of kube's bound tokens unless `--service-account-issuer` says otherwise. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";
/** The issuer of legacy Secret-based tokens (`serviceaccount.LegacyIssuer`). */
export const LEGACY_SERVICE_ACCOUNT_ISSUER = "kubernetes/serviceaccount";

/** A name and uid, as the `kubernetes.io` claim refers to objects. */
export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What a bound token says. */
export interface BoundTokenClaimsInput {
  readonly issuer: string;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  /** At most one of pod (optionally with its node) or secret or node. */
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
  readonly audiences: readonly string[];
  /** Seconds since the epoch. */
  readonly now: number;
  readonly expirationSeconds: number;
  /** The kubelet's extended tokens: when clients are warned (seconds after `now`). */
  readonly warnAfterSeconds?: number;
  /** The token's unique id (`jti`). */
  readonly id: string;
}

/** A ref as kube's `ref` struct writes it (`name` and `uid` both omitempty). */
function ref(r: ObjectRef): JsonObject {
  return { ...(r.name === "" ? {} : { name: r.name }), ...(r.uid === "" ? {} : { uid: r.uid }) };
}

/** The claims of a bound token: aud, exp, iat, iss, jti, kubernetes.io, nbf, sub. */
export function boundTokenClaims(input: BoundTokenClaimsInput): JsonObject {
  const kubernetes: JsonObject = {
    namespace: input.namespace,
    ...(input.node ? { node: ref(input.node) } : {}),
    ...(input.pod ? { pod: ref(input.pod) } : {}),
    ...(input.secret ? { secret: ref(input.secret) } : {}),
    serviceaccount: ref(input.serviceAccount),
    ...(input.warnAfterSeconds === undefined
      ? {}
      : { warnafter: input.now + input.warnAfterSeconds }),
  };
  return {
    aud: [...input.audiences],
    exp: input.now + input.expirationSeconds,
    iat: input.now,
    iss: input.issuer,
    jti: input.id,
    "kubernetes.io": kubernetes,
    nbf: input.now,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

/** The private claim keys of legacy tokens. */
export const LEGACY_CLAIMS = Object.freeze({
  namespace: "kubernetes.io/serviceaccount/namespace",
  secretName: "kubernetes.io/serviceaccount/secret.name",
  serviceAccountName: "kubernetes.io/serviceaccount/service-account.name",
  serviceAccountUid: "kubernetes.io/serviceaccount/service-account.uid",
});

/** The claims of a legacy token for a service account's token Secret (no expiry, no audience). */
export function legacyTokenClaims(
  namespace: string,
  serviceAccount: ObjectRef,
  secretName: string,
): JsonObject {
  return {
    iss: LEGACY_SERVICE_ACCOUNT_ISSUER,
    [LEGACY_CLAIMS.namespace]: namespace,
    [LEGACY_CLAIMS.secretName]: secretName,
    [LEGACY_CLAIMS.serviceAccountName]: serviceAccount.name,
    [LEGACY_CLAIMS.serviceAccountUid]: serviceAccount.uid,
    sub: serviceAccountUsername(namespace, serviceAccount.name),
  };
}
