import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  isDns1035Label,
  isDns1123Subdomain,
  isWildcardDns1123Subdomain,
} from "kubekit/apimachinery";
import { ingressStrategy } from "../../../../packages/apiserver/src/kinds/ingress.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * networking.k8s.io/v1 Ingresses (`pkg/apis/networking/validation/validation.go`
 * ValidateIngressSpec, ValidateIngressCreate, ValidateIngressUpdate).
 */

const ingress = hooksOf(ingressStrategy);
const BACKEND = { service: { name: "web", port: { number: 80 } } };

function ingressWith(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return { metadata: { name: "main", namespace: "default", ...metadata }, spec };
}

function rule(host: string | undefined, paths: JsonObject[]): JsonObject {
  return { ...(host === undefined ? {} : { host }), http: { paths } };
}

function errors(spec: JsonObject): string[] {
  return messages(ingress.validateCreate(ingressWith(spec)));
}

describe("Ingress rules", () => {
  it("accepts rules with Prefix, Exact and ImplementationSpecific paths, or a default backend alone", () => {
    expect(
      errors({
        rules: [
          rule("example.com", [
            { path: "/", pathType: "Prefix", backend: BACKEND },
            {
              path: "/api",
              pathType: "Exact",
              backend: { service: { name: "api", port: { name: "http" } } },
            },
            {
              pathType: "ImplementationSpecific",
              backend: { resource: { apiGroup: "example.com", kind: "Bucket", name: "static" } },
            },
          ]),
          rule("*.example.com", [{ path: "/", pathType: "Prefix", backend: BACKEND }]),
        ],
      }),
    ).toEqual([]);
    expect(errors({ defaultBackend: BACKEND })).toEqual([]);
  });

  it("requires rules or a default backend", () => {
    expect(errors({})).toEqual([
      "spec: Invalid value: null: either `defaultBackend` or `rules` must be specified",
    ]);
  });

  it("checks hosts: DNS names, wildcards, never IP addresses", () => {
    expect(
      errors({ rules: [rule("10.0.0.1", [{ path: "/", pathType: "Prefix", backend: BACKEND }])] }),
    ).toEqual([
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]);
    expect(
      errors({ rules: [rule("Bad_Host", [{ path: "/", pathType: "Prefix", backend: BACKEND }])] }),
    ).toEqual(
      isDns1123Subdomain("Bad_Host").map(
        (m) => `spec.rules[0].host: Invalid value: "Bad_Host": ${m}`,
      ),
    );
    expect(
      errors({ rules: [rule("a.*.com", [{ path: "/", pathType: "Prefix", backend: BACKEND }])] }),
    ).toEqual(
      isWildcardDns1123Subdomain("a.*.com").map(
        (m) => `spec.rules[0].host: Invalid value: "a.*.com": ${m}`,
      ),
    );
  });

  it("requires paths and a supported pathType; Exact and Prefix paths absolute and clean", () => {
    expect(errors({ rules: [rule(undefined, [])] })).toEqual([
      "spec.rules[0].http.paths: Required value",
    ]);
    expect(
      errors({
        rules: [
          rule(undefined, [
            { path: "/", backend: BACKEND },
            { path: "/", pathType: "Regex", backend: BACKEND },
            { path: "api//v1/..", pathType: "Prefix", backend: BACKEND },
            { path: "relative", pathType: "ImplementationSpecific", backend: BACKEND },
          ]),
        ],
      }),
    ).toEqual([
      "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
      'spec.rules[0].http.paths[1].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      'spec.rules[0].http.paths[2].path: Invalid value: "api//v1/..": must be an absolute path',
      "spec.rules[0].http.paths[2].path: Invalid value: \"api//v1/..\": must not contain '//'",
      "spec.rules[0].http.paths[2].path: Invalid value: \"api//v1/..\": cannot end with '/..'",
      'spec.rules[0].http.paths[3].path: Invalid value: "relative": must be an absolute path',
    ]);
  });
});

describe("Ingress backends (validateIngressBackend)", () => {
  function backendErrors(backend: JsonObject): string[] {
    return errors({ defaultBackend: backend });
  }

  it("requires a Service or a resource, not both", () => {
    expect(backendErrors({})).toEqual([
      'spec.defaultBackend: Invalid value: "": resource or service backend is required',
    ]);
    expect(backendErrors({ ...BACKEND, resource: { kind: "Bucket", name: "b" } })).toEqual([
      'spec.defaultBackend: Invalid value: "": cannot set both resource and service backends',
    ]);
    expect(backendErrors({ resource: {} })).toEqual([
      "spec.defaultBackend.resource.kind: Required value",
      "spec.defaultBackend.resource.name: Required value",
    ]);
  });

  it("checks the Service name and port", () => {
    expect(backendErrors({ service: { name: "9web", port: { number: 70000 } } })).toEqual([
      ...isDns1035Label("9web").map(
        (m) => `spec.defaultBackend.service.name: Invalid value: "9web": ${m}`,
      ),
      "spec.defaultBackend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ]);
    expect(backendErrors({ service: { name: "web", port: { name: "http", number: 80 } } })).toEqual(
      ['spec.defaultBackend: Invalid value: "": cannot set both port name & port number'],
    );
    expect(backendErrors({ service: { port: {} } })).toEqual([
      "spec.defaultBackend.service.name: Required value",
      "spec.defaultBackend: Required value: port name or number is required",
    ]);
  });
});

describe("Ingress TLS and class", () => {
  it("checks TLS hosts and secret names", () => {
    expect(
      errors({
        defaultBackend: BACKEND,
        tls: [{ hosts: ["*.example.com", "Bad_Host"], secretName: "Bad_Secret" }],
      }),
    ).toEqual([
      ...isDns1123Subdomain("Bad_Host").map(
        (m) => `spec.tls[0].hosts[1]: Invalid value: "Bad_Host": ${m}`,
      ),
      ...isDns1123Subdomain("Bad_Secret").map(
        (m) => `spec.tls[0].secretName: Invalid value: "Bad_Secret": ${m}`,
      ),
    ]);
  });

  it("checks ingressClassName, and on create its agreement with the legacy annotation", () => {
    const annotated = ingressWith(
      { defaultBackend: BACKEND, ingressClassName: "nginx" },
      { annotations: { "kubernetes.io/ingress.class": "traefik" } },
    );
    expect(messages(ingress.validateCreate(annotated))).toEqual([
      'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]);
    expect(ingress.validateUpdate(annotated, annotated)).toEqual([]);
    expect(errors({ defaultBackend: BACKEND, ingressClassName: "Bad_Class" })).toEqual(
      isDns1123Subdomain("Bad_Class").map(
        (m) => `spec.ingressClassName: Invalid value: "Bad_Class": ${m}`,
      ),
    );
  });

  it("lets an update keep an invalid TLS secretName the stored Ingress already had", () => {
    const stored = ingressWith({ defaultBackend: BACKEND, tls: [{ secretName: "Old_Secret" }] });
    const next = ingressWith({ defaultBackend: BACKEND, tls: [{ secretName: "New_Secret" }] });
    expect(ingress.validateUpdate(next, stored)).toEqual([]);
    const clean = ingressWith({ defaultBackend: BACKEND, tls: [{ secretName: "tls" }] });
    expect(messages(ingress.validateUpdate(next, clean))).toEqual(
      isDns1123Subdomain("New_Secret").map(
        (m) => `spec.tls[0].secretName: Invalid value: "New_Secret": ${m}`,
      ),
    );
  });

  it("tracks generation", () => {
    expect(ingressStrategy.policy).toEqual({ tracksGeneration: true });
  });
});
