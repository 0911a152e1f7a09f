import { createHash, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  parseJwt,
  signJwt,
  verifyJwtSignature,
} from "../../../packages/apiserver/src/auth/service-account-token/jwt.js";
import { keyIdOf } from "../../../packages/apiserver/src/auth/service-account-token/signing-key.js";
import {
  boundTokenClaims,
  legacyTokenClaims,
} from "../../../packages/apiserver/src/auth/service-account-token/token-claims.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

describe("service-account token signing", () => {
  it("derives kube's key id: unpadded base64url SHA-256 of the PKIX DER", () => {
    const der = publicKey.export({ type: "spki", format: "der" });
    const expected = createHash("sha256")
      .update(der)
      .digest("base64")
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    expect(keyIdOf(publicKey)).toBe(expected);
    expect(keyIdOf(publicKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("signs RS256 compact JWS that verifies, and refuses a tampered or foreign one", () => {
    const token = signJwt({ sub: "x" }, privateKey, "kid-1");
    const parsed = parseJwt(token);
    expect(parsed?.header).toEqual({ alg: "RS256", kid: "kid-1" });
    expect(parsed && verifyJwtSignature(parsed, publicKey)).toBe(true);
    const [h, , s] = token.split(".");
    const tampered = parseJwt(`${h}.${Buffer.from('{"sub":"y"}').toString("base64url")}.${s}`);
    expect(tampered && verifyJwtSignature(tampered, publicKey)).toBe(false);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey;
    expect(parsed && verifyJwtSignature(parsed, other)).toBe(false);
    for (const junk of ["", "a.b", "a.b.c.d", "!!.b.c", `${h}.bm90LWpzb24.${s}`])
      expect(parseJwt(junk)).toBeUndefined();
  });

  it("writes bound claims with sorted keys and only the refs given", () => {
    const claims = boundTokenClaims({
      issuer: "https://kubernetes.default.svc.cluster.local",
      namespace: "ns",
      serviceAccount: { name: "sa", uid: "u1" },
      pod: { name: "p", uid: "u2" },
      node: { name: "n", uid: "" },
      audiences: ["a"],
      now: 100,
      expirationSeconds: 600,
      warnAfterSeconds: 3607,
      id: "j",
    });
    expect(JSON.stringify(claims)).toBe(
      '{"aud":["a"],"exp":700,"iat":100,"iss":"https://kubernetes.default.svc.cluster.local","jti":"j","kubernetes.io":{"namespace":"ns","node":{"name":"n"},"pod":{"name":"p","uid":"u2"},"serviceaccount":{"name":"sa","uid":"u1"},"warnafter":3707},"nbf":100,"sub":"system:serviceaccount:ns:sa"}',
    );
  });

  it("writes legacy claims with kube's private claim names", () => {
    expect(legacyTokenClaims("ns", { name: "sa", uid: "u" }, "sa-token")).toEqual({
      iss: "kubernetes/serviceaccount",
      "kubernetes.io/serviceaccount/namespace": "ns",
      "kubernetes.io/serviceaccount/secret.name": "sa-token",
      "kubernetes.io/serviceaccount/service-account.name": "sa",
      "kubernetes.io/serviceaccount/service-account.uid": "u",
      sub: "system:serviceaccount:ns:sa",
    });
  });
});
