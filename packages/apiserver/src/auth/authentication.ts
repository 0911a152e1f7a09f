import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";

/** The identity of an authenticated (or anonymous) requester, as kube-apiserver's `user.Info`. */
export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  /**
   * Extra attributes (kube's `user.Info.GetExtra()`), e.g. a service account token's
   * `authentication.kubernetes.io/pod-name` and `authentication.kubernetes.io/credential-id`.
   */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What a bearer token authenticator concluded about one token: the token is not one of its
 * kind ("absent"), it is and identifies a user (accepted for `audiences`), or it is and is
 * not valid (`error` in kube's words; never contains the token).
 */
export type TokenOutcome =
  | "absent"
  | { readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly error: string };

/** A bearer token authenticator beyond the static tokens (the service-account tokens). */
export interface TokenAuthenticator {
  /** Authenticates `token` for `audiences` (default: the API server's own audiences). */
  authenticateToken(token: string, audiences?: readonly string[]): TokenOutcome;
}

/**
 * Which authenticators are on, mirroring kube-apiserver's flags.
 *
 * Client certificates need the HTTPS server created with
 * `requestCert: true, rejectUnauthorized: false, ca: [caPem]`: the server then
 * asks every client for a certificate, still lets clients without one (or with
 * a bad one) connect so that tokens and anonymous access keep working, and sets
 * the socket's `authorized` flag only for certificates that chain to `caPem`.
 */
export interface AuthenticationConfig {
  /** Static bearer tokens → users (like --token-auth-file). */
  readonly tokens?: Readonly<Record<string, UserInfo>>;
  /** Accept client certificates signed by the server's CA (CN → user, O → groups). */
  readonly clientCertificates?: boolean;
  /**
   * Allow unauthenticated requests as system:anonymous (like --anonymous-auth, default true).
   * What the anonymous user may then do is the authorizer's decision.
   */
  readonly anonymous?: boolean;
  /** Service-account tokens (bound and legacy JWTs), tried after the static tokens. */
  readonly serviceAccountTokens?: TokenAuthenticator;
}

/** The outcome of {@link authenticateRequest}; a failure carries no detail, so it cannot leak a credential. */
export type AuthenticationResult = { ok: true; user: UserInfo } | { ok: false };

/** The user name kube-apiserver gives unauthenticated requests. */
export const ANONYMOUS_USER_NAME = "system:anonymous";
/** The group kube-apiserver adds to every authenticated user. */
export const AUTHENTICATED_GROUP = "system:authenticated";
/** The group of the anonymous user. */
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";

/**
 * The user of a request no authenticator identified when anonymous access is allowed (and of
 * every request when the server has no authentication configured).
 */
export const ANONYMOUS_USER: UserInfo = Object.freeze({
  name: ANONYMOUS_USER_NAME,
  groups: Object.freeze([UNAUTHENTICATED_GROUP]),
});

/** OID of the clientAuth extended key usage. */
const CLIENT_AUTH_OID = "1.3.6.1.5.5.7.3.2";

/** What one authenticator concluded: a user, no credential of its kind, or a credential that it rejects. */
type AuthenticatorOutcome = UserInfo | "absent" | "rejected";

/**
 * Authenticates a request as kube-apiserver does with client certificates, static bearer
 * tokens and service-account tokens, then anonymous access.
 *
 * - A client certificate (when `clientCertificates` is true) is tried first: a
 *   certificate that the TLS layer verified against the CA (`authorized`) and
 *   that allows clientAuth gives user = subject CN (the last one, as Go reads
 *   it) and groups = every subject O. A certificate with an empty CN counts as
 *   no certificate; an unverified one is rejected.
 * - Then `Authorization: Bearer <token>` (when `tokens` or `serviceAccountTokens` is
 *   set; see {@link bearerToken}: scheme case-insensitive, header trimmed, split on
 *   single spaces): a static token gives its user, then a valid service-account token
 *   its service account; an unknown, invalid or empty token is rejected. Static tokens
 *   are compared in constant time. Other schemes count as no token.
 * - The first authenticator that yields a user wins. If none does and one
 *   rejected a credential, the request fails even when anonymous access is on
 *   (kube-apiserver answers 401 rather than downgrading to anonymous).
 *   Otherwise the request is anonymous when allowed (the default, as kube's
 *   `--anonymous-auth`), and fails when not.
 *
 * Authenticated users get `system:authenticated` appended unless their groups
 * already hold it or `system:unauthenticated`; the anonymous user is
 * `system:anonymous` in group `system:unauthenticated`. Returned users are fresh
 * objects. Nothing is logged, and a failure never carries the presented token.
 */
export function authenticateRequest(
  req: IncomingMessage,
  config: AuthenticationConfig,
): AuthenticationResult {
  const outcomes: AuthenticatorOutcome[] = [];
  if (config.clientCertificates === true) outcomes.push(authenticateClientCertificate(req.socket));
  if (config.tokens !== undefined || config.serviceAccountTokens !== undefined)
    outcomes.push(authenticateBearerToken(req.headers.authorization, config));
  for (const outcome of outcomes) {
    if (typeof outcome === "object") return { ok: true, user: withAuthenticatedGroup(outcome) };
  }
  if (outcomes.includes("rejected")) return { ok: false };
  if (anonymousAllowed(config))
    return { ok: true, user: { ...ANONYMOUS_USER, groups: [...ANONYMOUS_USER.groups] } };
  return { ok: false };
}

function anonymousAllowed(config: AuthenticationConfig): boolean {
  return config.anonymous ?? true;
}

function authenticateClientCertificate(socket: Socket | null): AuthenticatorOutcome {
  if (!(socket instanceof TLSSocket)) return "absent";
  const cert = socket.getPeerCertificate();
  if (Object.keys(cert).length === 0) return "absent";
  if (!socket.authorized) return "rejected";
  const usages = cert.ext_key_usage;
  if (usages !== undefined && !usages.includes(CLIENT_AUTH_OID)) return "rejected";
  const name = attributeValues(cert.subject, "CN").at(-1);
  if (name === undefined || name.length === 0) return "absent";
  return { name, groups: attributeValues(cert.subject, "O") };
}

/** The values of one subject attribute: Node gives a string for one value and an array for several. */
function attributeValues(subject: unknown, attribute: string): string[] {
  if (typeof subject !== "object" || subject === null) return [];
  const value: unknown = (subject as Record<string, unknown>)[attribute];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

function authenticateBearerToken(
  header: string | undefined,
  config: AuthenticationConfig,
): AuthenticatorOutcome {
  const token = bearerToken(header);
  if (token === undefined) return "absent";
  const outcome = authenticateToken(token, config);
  return typeof outcome === "object" && "user" in outcome ? outcome.user : "rejected";
}

/**
 * The outcome of a TokenReview, as kube's TokenReview REST authenticates its `spec.token`
 * through the request authenticator (`pkg/registry/authentication/tokenreview/storage.go`).
 */
export type TokenReviewOutcome =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly authenticated: false; readonly error: string };

/**
 * Reviews one bearer token for `audiences` (default the API audiences): the static tokens
 * (accepted for the API audiences), then the service-account tokens. A token no authenticator
 * knows is kube's `invalid bearer token`. Authenticated users get `system:authenticated`.
 */
export function reviewToken(
  token: string,
  config: AuthenticationConfig,
  apiAudiences: readonly string[],
  audiences?: readonly string[],
): TokenReviewOutcome {
  const outcome = authenticateToken(token, config, audiences);
  if (outcome === "absent") return { authenticated: false, error: "invalid bearer token" };
  if ("user" in outcome) {
    const accepted = outcome.audiences.length > 0 ? outcome.audiences : apiAudiences;
    return { authenticated: true, user: withAuthenticatedGroup(outcome.user), audiences: accepted };
  }
  return { authenticated: false, error: outcome.error };
}

/** The static tokens, then the service-account tokens; an empty token is rejected. */
function authenticateToken(
  token: string,
  config: AuthenticationConfig,
  audiences?: readonly string[],
): TokenOutcome {
  if (token === "") return { error: "invalid bearer token" };
  if (config.tokens !== undefined) {
    const user = staticTokenUser(token, config.tokens);
    if (user) return { user, audiences: [] };
  }
  return config.serviceAccountTokens?.authenticateToken(token, audiences) ?? "absent";
}

/**
 * The user of a static token. Tokens are compared in constant time over SHA-256 digests, and
 * every configured token is compared, so timing reveals neither the token nor which matched.
 */
function staticTokenUser(
  token: string,
  tokens: Readonly<Record<string, UserInfo>>,
): UserInfo | undefined {
  const presented = sha256(token);
  let match: UserInfo | undefined;
  for (const [known, user] of Object.entries(tokens)) {
    if (timingSafeEqual(sha256(known), presented) && match === undefined) match = user;
  }
  if (match === undefined) return undefined;
  return match.uid === undefined
    ? { name: match.name, groups: [...match.groups] }
    : { name: match.name, groups: [...match.groups], uid: match.uid };
}

/**
 * The token of an `Authorization` header as kube-apiserver's bearer token authenticator reads it
 * (staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go): the
 * trimmed header split on single spaces, the scheme compared case-insensitively, the token the
 * second part. Undefined (no token) for no header, another scheme or no space after the scheme
 * (`Bearer\ttoken`); `""` (a rejected credential) when the second part is empty, as with two
 * spaces (`Bearer  token`). A third part is ignored, as kube does.
 */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (trimmed === "") return undefined;
  const parts = trimmed.split(" ", 2);
  if (parts.length < 2 || parts[0]?.toLowerCase() !== "bearer") return undefined;
  return parts[1];
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP))
    return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
