/**
 * The service-account token issuer and authenticator of one server: signs bound and legacy
 * tokens with the server's key and authenticates them as kube's JWT token authenticator does
 * (`pkg/serviceaccount/jwt.go` jwtTokenAuthenticator.AuthenticateToken): a token of another
 * issuer is not ours (no opinion), a bad signature or an audience outside the target
 * audiences is an error, then the claims are validated against the stored objects.
 */
import { randomUUID } from "node:crypto";
import type { Clock, JsonObject } from "kubekit";
import { quoteGo } from "kubekit/apimachinery";
import type { Storage } from "../../storage/storage.js";
import type { TokenAuthenticator, TokenOutcome, UserInfo } from "../authentication.js";
import { serviceAccountGroups, serviceAccountUsername } from "../service-account-user.js";
import { parseJwt, signJwt, verifyJwtSignature } from "./jwt.js";
import { ServiceAccountSigningKey, type ServiceAccountJwk } from "./signing-key.js";
import {
  boundTokenClaims,
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  legacyTokenClaims,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  type BoundTokenClaimsInput,
  type ObjectRef,
} from "./token-claims.js";
import {
  validateBoundToken,
  validateLegacyToken,
  type ServiceAccountInfo,
} from "./token-validation.js";

/** go-jose's message for a signature that does not verify. */
const BAD_SIGNATURE = "go-jose/go-jose: error in cryptographic primitive";

/** The `extra` keys kube gives service-account users (`serviceaccount/util.go`). */
const EXTRA = Object.freeze({
  podName: "authentication.kubernetes.io/pod-name",
  podUid: "authentication.kubernetes.io/pod-uid",
  nodeName: "authentication.kubernetes.io/node-name",
  nodeUid: "authentication.kubernetes.io/node-uid",
  credentialId: "authentication.kubernetes.io/credential-id",
});

/** The user of a service account (kube's ServiceAccountInfo.UserInfo). */
export function serviceAccountUser(info: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (info.podName && info.podUid) {
    extra[EXTRA.podName] = [info.podName];
    extra[EXTRA.podUid] = [info.podUid];
  }
  if (info.credentialId) extra[EXTRA.credentialId] = [info.credentialId];
  if (info.nodeName) {
    extra[EXTRA.nodeName] = [info.nodeName];
    if (info.nodeUid) extra[EXTRA.nodeUid] = [info.nodeUid];
  }
  return {
    name: serviceAccountUsername(info.namespace, info.name),
    uid: info.uid,
    groups: serviceAccountGroups(info.namespace),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Go's `%q` of a string list: `["a" "b"]`. */
function quoteList(values: readonly string[]): string {
  return `[${values.map(quoteGo).join(" ")}]`;
}

/** What a bound token is for, beyond the issuer, time and id the issuer adds. */
export type BoundTokenSpec = Omit<BoundTokenClaimsInput, "issuer" | "now" | "id">;

/** One server's service-account tokens. */
export class ServiceAccountTokens implements TokenAuthenticator {
  /** The `iss` of bound tokens (`--service-account-issuer`). */
  readonly issuer: string;
  /** The audiences the API server itself accepts (`--api-audiences`, default the issuer). */
  readonly apiAudiences: readonly string[];
  readonly #key = new ServiceAccountSigningKey();
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock, issuer: string = DEFAULT_SERVICE_ACCOUNT_ISSUER) {
    this.#storage = storage;
    this.#clock = clock;
    this.issuer = issuer;
    this.apiAudiences = Object.freeze([issuer]);
  }

  /** Signs a bound token; `now` (seconds) is the server clock's. Returns the token and its claims. */
  async issueBound(spec: BoundTokenSpec): Promise<{ token: string; claims: JsonObject }> {
    const key = await this.#key.keyPair();
    const claims = boundTokenClaims({
      ...spec,
      issuer: this.issuer,
      now: Math.floor(this.#clock.now() / 1000),
      id: randomUUID(),
    });
    return { token: signJwt(claims, key.privateKey, key.keyId), claims };
  }

  /** Signs a legacy token for the token Secret `secretName` of a service account. */
  async issueLegacy(
    namespace: string,
    serviceAccount: ObjectRef,
    secretName: string,
  ): Promise<string> {
    const key = await this.#key.keyPair();
    return signJwt(
      legacyTokenClaims(namespace, serviceAccount, secretName),
      key.privateKey,
      key.keyId,
    );
  }

  /** The public keys as a JWK Set (`/openid/v1/jwks`); the key is made on first use. */
  async jwks(): Promise<{ keys: ServiceAccountJwk[] }> {
    return { keys: [(await this.#key.keyPair()).jwk] };
  }

  /**
   * Authenticates a bearer token: "absent" when it is not a JWT of this server's issuers; an
   * error when its signature, audience or claims are not valid; else the service account's
   * user and the audiences it was accepted for. `audiences` (default the API audiences) are
   * the target audiences, as a TokenReview's `spec.audiences`.
   */
  authenticateToken(token: string, audiences?: readonly string[]): TokenOutcome {
    const jwt = parseJwt(token);
    const issuer = jwt?.claims["iss"];
    if (!jwt || (issuer !== this.issuer && issuer !== LEGACY_SERVICE_ACCOUNT_ISSUER))
      return "absent";
    const key = this.#key.generated;
    if (!key || !verifyJwtSignature(jwt, key.publicKey)) return { error: BAD_SIGNATURE };
    const legacy = issuer === LEGACY_SERVICE_ACCOUNT_ISSUER;
    const aud = jwt.claims["aud"];
    const tokenAudiences = legacy
      ? this.apiAudiences
      : (Array.isArray(aud) ? aud : [aud]).filter((a): a is string => typeof a === "string");
    const requested = audiences && audiences.length > 0 ? audiences : this.apiAudiences;
    const accepted = tokenAudiences.filter((a) => requested.includes(a));
    if (accepted.length === 0) {
      return {
        error: `token audiences ${quoteList(tokenAudiences)} is invalid for the target audiences ${quoteList(requested)}`,
      };
    }
    const now = this.#clock.now() / 1000;
    const info = legacy
      ? validateLegacyToken(this.#storage, token, jwt.claims, now)
      : validateBoundToken(this.#storage, jwt.claims, now);
    if ("error" in info) return { error: info.error };
    return { user: serviceAccountUser(info), audiences: accepted };
  }
}
