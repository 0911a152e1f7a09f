import { describe, expect, it } from "vitest";
import {
  isDns1035Label,
  isDns1123Label,
  isConfigMapKey,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  validatePathSegmentName,
} from "../../../packages/kubekit/src/core/names.js";

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("isDns1123Subdomain", () => {
  it("accepts valid subdomains", () => {
    for (const v of ["a", "web-0", "example.com", "a.b-c.d", "0", "x".repeat(253)]) {
      expect(isDns1123Subdomain(v)).toEqual([]);
    }
  });

  it("rejects with the exact message", () => {
    expect(isDns1123Subdomain("Foo")).toEqual([SUBDOMAIN_MSG]);
    for (const v of ["", "-a", "a-", "a..b", ".a", "a_b", "a b"]) {
      expect(isDns1123Subdomain(v)).toEqual([SUBDOMAIN_MSG]);
    }
  });

  it("reports length and syntax separately", () => {
    expect(isDns1123Subdomain("a".repeat(254))).toEqual(["must be no more than 253 characters"]);
    expect(isDns1123Subdomain("A".repeat(254))).toEqual([
      "must be no more than 253 characters",
      SUBDOMAIN_MSG,
    ]);
  });

  it("counts UTF-8 bytes like Go", () => {
    // 127 two-byte characters are 254 bytes.
    expect(isDns1123Subdomain("é".repeat(127))[0]).toBe("must be no more than 253 characters");
    expect(isDns1123Subdomain("é".repeat(126))).toEqual([SUBDOMAIN_MSG]);
  });
});

describe("isDns1123Label", () => {
  it("accepts labels and rejects dots with the short message", () => {
    expect(isDns1123Label("kube-system")).toEqual([]);
    expect(isDns1123Label("a.b")).toEqual(["must not contain dots"]);
    expect(isDns1123Label("Abc")).toEqual([LABEL_MSG]);
    expect(isDns1123Label("")).toEqual([LABEL_MSG]);
  });

  it("limits to 63", () => {
    expect(isDns1123Label("a".repeat(63))).toEqual([]);
    expect(isDns1123Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("isDns1035Label", () => {
  it("requires a leading letter", () => {
    expect(isDns1035Label("my-svc")).toEqual([]);
    expect(isDns1035Label("1abc")).toEqual([DNS1035_MSG]);
    expect(isDns1035Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("isQualifiedName", () => {
  it("accepts names with and without prefix", () => {
    for (const v of [
      "app",
      "App.Name_1",
      "example.com/MyName",
      "kubernetes.io/metadata.name",
      "a",
    ]) {
      expect(isQualifiedName(v)).toEqual([]);
    }
  });

  it("rejects bad name parts", () => {
    expect(isQualifiedName("-a")).toEqual([NAME_PART_MSG]);
    expect(isQualifiedName("")).toEqual(["name part must be non-empty", NAME_PART_MSG]);
    expect(isQualifiedName("a".repeat(64))).toEqual([
      "name part must be no more than 63 characters",
    ]);
  });

  it("rejects bad prefixes", () => {
    expect(isQualifiedName("/a")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("Example.com/a")).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
  });

  it("rejects more than one slash with a single message", () => {
    expect(isQualifiedName("a/b/c")).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe("isValidLabelValue", () => {
  it("accepts empty and valid values", () => {
    for (const v of ["", "v1", "a.b_c-d", "x".repeat(63)]) expect(isValidLabelValue(v)).toEqual([]);
  });

  it("rejects invalid values", () => {
    expect(isValidLabelValue("a b")).toEqual([LABEL_VALUE_MSG]);
    expect(isValidLabelValue("-a")).toEqual([LABEL_VALUE_MSG]);
    expect(isValidLabelValue("x".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("validatePathSegmentName", () => {
  it("allows RBAC-style names", () => {
    expect(validatePathSegmentName("system:controller:foo")).toEqual([]);
    expect(validatePathSegmentName("Anything Goes")).toEqual([]);
    expect(validatePathSegmentName("")).toEqual([]);
  });

  it("rejects . and .. and / and %", () => {
    expect(validatePathSegmentName(".")).toEqual(["may not be '.'"]);
    expect(validatePathSegmentName("..")).toEqual(["may not be '..'"]);
    expect(validatePathSegmentName("a/b")).toEqual(["may not contain '/'"]);
    expect(validatePathSegmentName("a/%b")).toEqual(["may not contain '/'", "may not contain '%'"]);
  });

  it("as a prefix only checks the contained characters", () => {
    expect(validatePathSegmentName("..", true)).toEqual([]);
    expect(validatePathSegmentName("a%", true)).toEqual(["may not contain '%'"]);
  });
});

describe("isConfigMapKey", () => {
  it("accepts alphanumerics, '-', '_' and '.'", () => {
    for (const key of ["a", "KEY_NAME", "key-name", "key.name", ".hidden", "a..b"])
      expect(isConfigMapKey(key)).toEqual([]);
  });

  it("rejects other characters, '.', '..', a leading '..' and more than 253 characters", () => {
    expect(isConfigMapKey("bad key!")).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(isConfigMapKey(".")).toEqual(["must not be '.'"]);
    expect(isConfigMapKey("..")).toEqual(["must not be '..'"]);
    expect(isConfigMapKey("..a")).toEqual(["must not start with '..'"]);
    expect(isConfigMapKey("a".repeat(254))).toEqual(["must be no more than 253 characters"]);
  });
});

describe("isValidPortName", () => {
  it("accepts IANA service names", () => {
    for (const name of ["http", "h2c", "web-8080", "a".repeat(15)])
      expect(isValidPortName(name)).toEqual([]);
  });

  it("names each broken rule", () => {
    expect(isValidPortName("a".repeat(16))).toEqual(["must be no more than 15 characters"]);
    expect(isValidPortName("HTTP")).toEqual([
      "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      "must contain at least one letter (a-z)",
    ]);
    expect(isValidPortName("8080")).toEqual(["must contain at least one letter (a-z)"]);
    expect(isValidPortName("a--b")).toEqual(["must not contain consecutive hyphens"]);
    expect(isValidPortName("-ab")).toEqual(["must not begin or end with a hyphen"]);
  });
});
