import { describe, expect, it } from "vitest";
import {
  parseListenAddresses,
  parsePortForwardSpecs,
} from "../../../packages/kubekit/src/client/port-forward-ports.js";

describe("port-forward port specs (kubectl's parsePorts)", () => {
  it("reads P, L:R, :R and 0:R", () => {
    expect(parsePortForwardSpecs([5000, "8080", "8888:5000", ":5001", "0:5002"])).toEqual([
      { local: 5000, remote: 5000 },
      { local: 8080, remote: 8080 },
      { local: 8888, remote: 5000 },
      { local: 0, remote: 5001 },
      { local: 0, remote: 5002 },
    ]);
  });

  it.each([
    [[], "port-forward needs at least one port"],
    [["1:2:3"], "invalid port format '1:2:3'"],
    [["80:0"], "remote port must be > 0 in '80:0'"],
    [[0], "remote port must be > 0 in '0'"],
    [["http"], "error parsing local port 'http' of 'http'"],
    [["80:65536"], "error parsing remote port '65536' of '80:65536'"],
    [["-1:80"], "error parsing local port '-1' of '-1:80'"],
    [[1.5], "error parsing local port '1.5' of '1.5'"],
  ])("refuses %j", (specs, message) => {
    expect(() => parsePortForwardSpecs(specs)).toThrow(TypeError);
    expect(() => parsePortForwardSpecs(specs)).toThrow(message);
  });
});

describe("port-forward listen addresses (kubectl's parseAddresses)", () => {
  it("expands localhost to 127.0.0.1 and ::1, either of which may fail", () => {
    expect(parseListenAddresses(["localhost"])).toEqual([
      { host: "127.0.0.1", failureMode: "all" },
      { host: "::1", failureMode: "all" },
    ]);
  });

  it("takes IPs as they are (each must work), drops duplicates and sorts", () => {
    expect(parseListenAddresses(["::1", "10.0.0.1", "localhost", "10.0.0.1"])).toEqual([
      { host: "10.0.0.1", failureMode: "any" },
      { host: "127.0.0.1", failureMode: "all" },
      { host: "::1", failureMode: "any" },
    ]);
  });

  it("refuses names and an empty list", () => {
    expect(() => parseListenAddresses(["example.com"])).toThrow("example.com is not a valid IP");
    expect(() => parseListenAddresses([])).toThrow("port-forward needs at least one address");
  });
});
