import { createPublicKey, createVerify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { ApiClient } from "../../support/api-client.js";
import { eventually, useServer } from "../../support/server-test-helpers.js";

/**
 * Service-account tokens over HTTPS: TokenRequest (`serviceaccounts/NAME/token`) issuing RS256
 * JWTs with kube's claims, the server authenticating them (and refusing them once expired or
 * once their bound pod is gone), TokenReview, and the issuer discovery documents.
 */

const ADMIN = "admin-token";
const ISSUER = "https://kubernetes.default.svc.cluster.local";
const TOKEN_PATH = "/api/v1/namespaces/default/serviceaccounts/default/token";
const REVIEW = "/apis/authentication.k8s.io/v1/tokenreviews";

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >;
}

describe("service account tokens", () => {
  const clock = new FakeClock(Date.parse("2026-03-01T00:00:00Z"));
  const h = useServer({
    tls: true,
    clock,
    auth: { tokens: { [ADMIN]: { name: "admin", groups: ["system:masters"] } } },
  });
  let admin: ApiClient;

  beforeAll(() => {
    admin = ApiClient.for(h.server, { token: ADMIN });
  });
  afterAll(async () => {
    await admin.close();
  });

  async function requestToken(spec: Record<string, unknown> = {}): Promise<string> {
    const res = await admin.post(TOKEN_PATH, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec,
    });
    expect(res.status, res.text).toBe(201);
    return res.json.status.token as string;
  }

  it("issues an RS256 JWT with kube's claims, verifiable with the published JWKS", async () => {
    const res = await admin.post(TOKEN_PATH, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    });
    expect(res.json.spec).toEqual({
      audiences: [ISSUER],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    expect(res.json.status.expirationTimestamp).toBe("2026-03-01T01:00:00Z");
    const token = res.json.status.token as string;
    const header = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString());
    const sa = await admin.get("/api/v1/namespaces/default/serviceaccounts/default");
    const now = Date.parse("2026-03-01T00:00:00Z") / 1000;
    expect(claimsOf(token)).toEqual({
      aud: [ISSUER],
      exp: now + 3600,
      iat: now,
      iss: ISSUER,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      "kubernetes.io": {
        namespace: "default",
        serviceaccount: { name: "default", uid: sa.json.metadata.uid },
      },
      nbf: now,
      sub: "system:serviceaccount:default:default",
    });
    const jwks = await admin.get("/openid/v1/jwks");
    expect(jwks.headers["content-type"]).toBe("application/jwk-set+json");
    const key = jwks.json.keys[0];
    expect(header).toEqual({ alg: "RS256", kid: key.kid });
    const [h64, p64, s64] = token.split(".") as [string, string, string];
    const verified = createVerify("RSA-SHA256")
      .update(`${h64}.${p64}`)
      .verify(createPublicKey({ key, format: "jwk" }), Buffer.from(s64, "base64url"));
    expect(verified).toBe(true);
    const discovery = await admin.get("/.well-known/openid-configuration");
    expect(discovery.json).toEqual({
      issuer: ISSUER,
      jwks_uri: `https://127.0.0.1:${h.server.port}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
  });

  it("authenticates the token as the service account (kubectl auth whoami)", async () => {
    const sa = ApiClient.for(h.server, { token: await requestToken() });
    try {
      const who = await sa.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", {});
      expect(who.json.status.userInfo).toMatchObject({
        username: "system:serviceaccount:default:default",
        groups: [
          "system:serviceaccounts",
          "system:serviceaccounts:default",
          "system:authenticated",
        ],
        extra: { "authentication.kubernetes.io/credential-id": [expect.stringMatching(/^JTI=/)] },
      });
    } finally {
      await sa.close();
    }
  });

  it("reviews tokens: valid, another audience, expired, junk", async () => {
    const token = await requestToken();
    const review = async (spec: Record<string, unknown>): Promise<Record<string, unknown>> =>
      (
        await admin.post(REVIEW, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec,
        })
      ).json.status;
    expect(await review({ token })).toMatchObject({
      authenticated: true,
      user: { username: "system:serviceaccount:default:default" },
      audiences: [ISSUER],
    });
    expect(await review({ token, audiences: ["vault"] })).toEqual({
      user: {},
      error: `token audiences ["${ISSUER}"] is invalid for the target audiences ["vault"]`,
    });
    expect(await review({ token: "junk" })).toEqual({ user: {}, error: "invalid bearer token" });
    const empty = await admin.post(REVIEW, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: {},
    });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe("token is required for TokenReview in authentication");
    const short = await requestToken({ expirationSeconds: 600 });
    clock.advance(661_000);
    expect(await review({ token: short })).toEqual({
      user: {},
      error: "service account token has expired",
    });
    const expired = ApiClient.for(h.server, { token: short });
    try {
      expect((await expired.get("/api/v1/namespaces")).status).toBe(401);
    } finally {
      await expired.close();
    }
  });

  it("validates the request as kube does", async () => {
    const tooShort = await admin.post(TOKEN_PATH, { spec: { expirationSeconds: 599 } });
    expect(tooShort.status).toBe(422);
    expect(tooShort.json.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    );
    const missing = await admin.post("/api/v1/namespaces/default/serviceaccounts/ghost/token", {});
    expect(missing.status).toBe(404);
    const badKind = await admin.post(TOKEN_PATH, {
      spec: { boundObjectRef: { apiVersion: "v1", kind: "ConfigMap", name: "x" } },
    });
    expect(badKind.status).toBe(400);
    expect(badKind.json.message).toBe("cannot bind token to object of type /v1, Kind=ConfigMap");
  });

  it("binds a token to a pod: pod claims and extra, invalid once the pod is gone", async () => {
    const pod = await admin.post("/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "bound" },
      spec: { serviceAccountName: "default", containers: [{ name: "c", image: "busybox" }] },
    });
    expect(pod.status, pod.text).toBe(201);
    const uid = pod.json.metadata.uid as string;
    const conflict = await admin.post(TOKEN_PATH, {
      spec: { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "bound", uid: "other" } },
    });
    expect(conflict.status).toBe(409);
    const token = await requestToken({
      boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "bound", uid },
    });
    expect((claimsOf(token)["kubernetes.io"] as Record<string, unknown>)["pod"]).toEqual({
      name: "bound",
      uid,
    });
    const review = await admin.post(REVIEW, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    expect(review.json.status.user.extra).toMatchObject({
      "authentication.kubernetes.io/pod-name": ["bound"],
      "authentication.kubernetes.io/pod-uid": [uid],
    });
    await admin.delete("/api/v1/namespaces/default/pods/bound");
    const after = await admin.post(REVIEW, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    expect(after.json.status).toEqual({ user: {}, error: 'pod "bound" not found' });
  });

  it("fills a legacy token Secret, whose token authenticates while the Secret holds it", async () => {
    const created = await admin.post("/api/v1/namespaces/default/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "default-token",
        annotations: { "kubernetes.io/service-account.name": "default" },
      },
      type: "kubernetes.io/service-account-token",
    });
    expect(created.status, created.text).toBe(201);
    const secret = await eventually("the token is filled", async () => {
      const res = await admin.get("/api/v1/namespaces/default/secrets/default-token");
      return res.json.data?.token ? res.json : undefined;
    });
    const token = Buffer.from(secret.data.token as string, "base64").toString();
    expect(claimsOf(token)).toMatchObject({
      iss: "kubernetes/serviceaccount",
      "kubernetes.io/serviceaccount/secret.name": "default-token",
      sub: "system:serviceaccount:default:default",
    });
    const review = async (): Promise<Record<string, unknown>> =>
      (
        await admin.post(REVIEW, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: { token },
        })
      ).json.status;
    expect(await review()).toMatchObject({
      authenticated: true,
      user: { username: "system:serviceaccount:default:default" },
    });
    await admin.delete("/api/v1/namespaces/default/secrets/default-token");
    expect(await review()).toEqual({ user: {}, error: "token has been invalidated" });
  });
});
