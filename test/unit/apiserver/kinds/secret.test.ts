import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isConfigMapKey } from "kubekit/apimachinery";
import { secretStrategy } from "../../../../packages/apiserver/src/kinds/secret.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * core/v1 Secrets: stringData (`pkg/apis/core/v1/conversion.go`), SetDefaults_Secret
 * (`pkg/apis/core/v1/defaults.go`), ValidateSecret / ValidateSecretUpdate
 * (`pkg/apis/core/validation/validation.go`).
 */

const secret = hooksOf(secretStrategy);

function secretWith(fields: JsonObject): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "creds", namespace: "default" },
    ...fields,
  };
}

const b64 = (text: string): string => Buffer.from(text).toString("base64");

describe("Secret defaults", () => {
  it("defaults the type to Opaque and keeps a set type", () => {
    expect(secret.applyDefaults(secretWith({}))["type"]).toBe("Opaque");
    expect(secret.applyDefaults(secretWith({ type: "" }))["type"]).toBe("Opaque");
    expect(secret.applyDefaults(secretWith({ type: "kubernetes.io/tls" }))["type"]).toBe(
      "kubernetes.io/tls",
    );
  });

  it("merges stringData into data as base64, its entries winning, and never keeps it", () => {
    const out = secret.applyDefaults(
      secretWith({
        data: { user: b64("old"), keep: b64("k") },
        stringData: { user: "admin", pass: "s3cr3t" },
      }),
    );
    expect(out["data"]).toEqual({ user: b64("admin"), keep: b64("k"), pass: b64("s3cr3t") });
    expect(out).not.toHaveProperty("stringData");
  });
});

describe("Secret validation", () => {
  it("accepts an Opaque Secret and checks its keys", () => {
    expect(
      secret.validateCreate(secret.applyDefaults(secretWith({ data: { a: b64("1") } }))),
    ).toEqual([]);
    expect(
      messages(secret.validateCreate(secret.applyDefaults(secretWith({ data: { "a b": "" } })))),
    ).toEqual(isConfigMapKey("a b").map((m) => `data[a b]: Invalid value: "a b": ${m}`));
  });

  it("requires the keys of the built-in types", () => {
    const required = (type: string) =>
      messages(secret.validateCreate(secretWith({ type, data: {} })));
    expect(required("kubernetes.io/tls")).toEqual([
      "data[tls.crt]: Required value",
      "data[tls.key]: Required value",
    ]);
    expect(required("kubernetes.io/dockercfg")).toEqual(["data[.dockercfg]: Required value"]);
    expect(required("kubernetes.io/dockerconfigjson")).toEqual([
      "data[.dockerconfigjson]: Required value",
    ]);
    expect(required("kubernetes.io/ssh-auth")).toEqual(["data[ssh-privatekey]: Required value"]);
    expect(required("example.com/custom")).toEqual([]);
  });

  it("limits the decoded data to 1 MiB, reported at `data`", () => {
    const big = Buffer.alloc(1024 * 1024 + 1).toString("base64");
    expect(messages(secret.validateCreate(secretWith({ type: "Opaque", data: { big } })))).toEqual([
      "data: Too long: may not be more than 1048576 bytes",
    ]);
  });

  it("keeps the type immutable and the data frozen when `immutable` is set", () => {
    const old = secret.applyDefaults(secretWith({ data: { a: b64("1") } }));
    expect(
      messages(
        secret.validateUpdate(
          secret.applyDefaults(secretWith({ type: "example.com/x", data: { a: b64("1") } })),
          old,
        ),
      ),
    ).toEqual(['type: Invalid value: "example.com/x": field is immutable']);
    const frozenOld = { ...old, immutable: true };
    expect(
      messages(
        secret.validateUpdate(
          secret.applyDefaults(secretWith({ immutable: true, stringData: { a: "2" } })),
          frozenOld,
        ),
      ),
    ).toEqual(["data: Forbidden: field is immutable when `immutable` is set"]);
  });

  it("selects by type and prints kube's columns", () => {
    expect(secretStrategy.policy?.selectableFields?.["type"]?.({ type: "Opaque" })).toBe("Opaque");
    expect(secretStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Type",
      "Data",
      "Age",
    ]);
  });
});
