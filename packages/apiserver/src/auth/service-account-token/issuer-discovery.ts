/**
 * Service account issuer discovery, as kube-apiserver serves it
 * (`pkg/serviceaccount/openidmetadata.go`, `pkg/routes/openidmetadata.go`):
 * `GET /.well-known/openid-configuration` (the OIDC provider metadata) and
 * `GET /openid/v1/jwks` (the signing key as a JWK Set), JSON without a trailing newline,
 * cacheable for an hour. Reading them needs the `get` verb on those paths (RBAC's
 * `system:service-account-issuer-discovery`, bound to every service account).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerContext } from "../../server/server-context.js";
import { sendBody } from "../../endpoints/responses.js";

/** The OIDC provider metadata path. */
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";
/** The JWK Set path. */
export const JWKS_PATH = "/openid/v1/jwks";

const CACHE_CONTROL = "public, max-age=3600";

/**
 * Answers a GET of one of the discovery paths and returns true; false for any other request
 * (or a server without service-account tokens). `externalAddress` is `host:port` of the
 * server, the host of the `jwks_uri`.
 */
export async function serveServiceAccountIssuerDiscovery(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  externalAddress: string,
): Promise<boolean> {
  const tokens = ctx.access?.serviceAccountTokens;
  if (!tokens || (req.method !== "GET" && req.method !== "HEAD")) return false;
  if (path === OPENID_CONFIGURATION_PATH) {
    const metadata = {
      issuer: tokens.issuer,
      jwks_uri: `https://${externalAddress}${JWKS_PATH}`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    };
    sendBody(res, 200, JSON.stringify(metadata), "application/json", {
      "Cache-Control": CACHE_CONTROL,
    });
    return true;
  }
  if (path === JWKS_PATH) {
    sendBody(res, 200, JSON.stringify(await tokens.jwks()), "application/jwk-set+json", {
      "Cache-Control": CACHE_CONTROL,
    });
    return true;
  }
  return false;
}
