import { describe, expect, it } from "vitest";
import {
  AGGREGATED_DISCOVERY_ACCEPT,
  aggregatedDiscoveryVersion,
  LEGACY_DISCOVERY_ACCEPT,
} from "../../../packages/kubekit/src/client/discovery-media-type.js";

describe("discovery Accept headers", () => {
  it("asks for v2, then v2beta1, then plain JSON, exactly as kubectl 1.32", () => {
    expect(AGGREGATED_DISCOVERY_ACCEPT).toBe(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," +
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," +
        "application/json",
    );
    expect(LEGACY_DISCOVERY_ACCEPT).toBe("application/json");
  });
});

describe("aggregatedDiscoveryVersion (format from the response Content-Type)", () => {
  it("recognises the exact server Content-Types for v2 and v2beta1", () => {
    expect(
      aggregatedDiscoveryVersion(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
      ),
    ).toBe("v2");
    expect(
      aggregatedDiscoveryVersion(
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
      ),
    ).toBe("v2beta1");
  });

  it("accepts the parameters in any order, with spaces, and case-insensitive names and base type", () => {
    expect(
      aggregatedDiscoveryVersion(
        "application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io",
      ),
    ).toBe("v2");
    expect(
      aggregatedDiscoveryVersion(
        "Application/JSON;AS=APIGroupDiscoveryList;G=apidiscovery.k8s.io;V=v2beta1",
      ),
    ).toBe("v2beta1");
    expect(
      aggregatedDiscoveryVersion(
        'application/json;g="apidiscovery.k8s.io";v="v2";as="APIGroupDiscoveryList"',
      ),
    ).toBe("v2");
  });

  it("ignores extra parameters such as profile and charset", () => {
    expect(
      aggregatedDiscoveryVersion(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer;charset=utf-8",
      ),
    ).toBe("v2");
  });

  it("takes the first value of a repeated header", () => {
    expect(
      aggregatedDiscoveryVersion([
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/json",
      ]),
    ).toBe("v2");
  });

  it("treats everything else as legacy", () => {
    for (const contentType of [
      undefined,
      "",
      "application/json",
      "application/json; charset=utf-8",
      // Each mandatory parameter missing (client-go parses these as legacy).
      "application/json;v=v2;as=APIGroupDiscoveryList",
      "application/json;g=apidiscovery.k8s.io;as=APIGroupDiscoveryList",
      "application/json;g=apidiscovery.k8s.io;v=v2",
      // Wrong values (values are case-sensitive).
      "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
      "application/json;g=meta.k8s.io;v=v2;as=APIGroupDiscoveryList",
      "application/json;g=apidiscovery.k8s.io;v=v2;as=Table",
      "application/json;g=apidiscovery.k8s.io;v=V2;as=APIGroupDiscoveryList",
      // Another base type.
      "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
      "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
      "text/plain",
    ]) {
      expect(aggregatedDiscoveryVersion(contentType), String(contentType)).toBeUndefined();
    }
  });
});
