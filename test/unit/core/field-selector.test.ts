import { describe, expect, it } from "vitest";
import { FieldSelector, SelectorParseError } from "kubekit";

function parseError(text: string): SelectorParseError {
  try {
    FieldSelector.parse(text);
  } catch (e) {
    if (e instanceof SelectorParseError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

describe("FieldSelector.parse", () => {
  it("parses =, == and != terms, normalizing == to =", () => {
    expect(FieldSelector.parse("metadata.name=web").requirements).toEqual([
      { field: "metadata.name", operator: "=", value: "web" },
    ]);
    expect(FieldSelector.parse("metadata.name==web").requirements).toEqual([
      { field: "metadata.name", operator: "=", value: "web" },
    ]);
    expect(FieldSelector.parse("status.phase!=Running").requirements).toEqual([
      { field: "status.phase", operator: "!=", value: "Running" },
    ]);
  });

  it("sorts terms by their text, like apimachinery", () => {
    expect(
      FieldSelector.parse("spec.nodeName=n1,metadata.namespace=ns").requirements.map(
        (r) => r.field,
      ),
    ).toEqual(["metadata.namespace", "spec.nodeName"]);
  });

  it("accepts empty values and empty field names", () => {
    expect(FieldSelector.parse("spec.nodeName=").requirements).toEqual([
      { field: "spec.nodeName", operator: "=", value: "" },
    ]);
    expect(FieldSelector.parse("=v").requirements).toEqual([
      { field: "", operator: "=", value: "v" },
    ]);
  });

  it("skips empty terms and treats the empty string as everything", () => {
    expect(FieldSelector.parse("").isEmpty()).toBe(true);
    expect(FieldSelector.parse(",").isEmpty()).toBe(true);
    expect(FieldSelector.parse("a=1,,b=2,").requirements).toHaveLength(2);
  });

  it("splits at the first operator; the rest belongs to the value", () => {
    expect(FieldSelector.parse("a=!b").requirements).toEqual([
      { field: "a", operator: "=", value: "!b" },
    ]);
  });

  it("keeps whitespace, which is significant", () => {
    expect(FieldSelector.parse(" a = b ").requirements).toEqual([
      { field: " a ", operator: "=", value: " b " },
    ]);
  });

  it("unescapes \\\\, \\, and \\= in values", () => {
    expect(FieldSelector.parse("a=x\\,y\\=z\\\\").requirements).toEqual([
      { field: "a", operator: "=", value: "x,y=z\\" },
    ]);
    expect(FieldSelector.parse("a=x\\,y,b=2").requirements).toEqual([
      { field: "a", operator: "=", value: "x,y" },
      { field: "b", operator: "=", value: "2" },
    ]);
  });
});

describe("FieldSelector.parse errors", () => {
  it("rejects a term without operator with apimachinery's message", () => {
    const e = parseError("a=b,foo");
    expect(e.message).toBe("invalid selector: 'a=b,foo'; can't understand 'foo'");
    expect(e.position).toBe(4);
    expect(e.input).toBe("a=b,foo");
  });

  it("rejects an unescaped = in a value, printing the rune as a number", () => {
    const e = parseError("a=b=c");
    expect(e.message).toBe("invalid field selector: unescaped character in value: 61");
    expect(e.position).toBe(3);
  });

  it("rejects unknown escapes and a trailing backslash", () => {
    const e = parseError("x=1,a=\\q");
    expect(e.message).toBe("invalid field selector: invalid escape sequence: \\q");
    expect(e.position).toBe(6);
    const t = parseError("a=b\\");
    expect(t.message).toBe("invalid field selector: invalid escape sequence: \\");
    expect(t.position).toBe(3);
  });

  it("rejects a != term whose value has an unescaped =", () => {
    expect(parseError("a!==b").message).toBe(
      "invalid field selector: unescaped character in value: 61",
    );
  });
});

describe("FieldSelector.matches", () => {
  const fields = { "metadata.name": "web", "metadata.namespace": "default", "status.phase": "" };

  it("matches = and !=", () => {
    expect(FieldSelector.parse("metadata.name=web").matches(fields)).toBe(true);
    expect(FieldSelector.parse("metadata.name=db").matches(fields)).toBe(false);
    expect(FieldSelector.parse("metadata.name!=db").matches(fields)).toBe(true);
    expect(FieldSelector.parse("metadata.name!=web").matches(fields)).toBe(false);
  });

  it("compares absent fields as the empty string", () => {
    expect(FieldSelector.parse("spec.nodeName=").matches(fields)).toBe(true);
    expect(FieldSelector.parse("spec.nodeName!=").matches(fields)).toBe(false);
    expect(FieldSelector.parse("spec.nodeName=n1").matches(fields)).toBe(false);
    expect(FieldSelector.parse("spec.nodeName!=n1").matches(fields)).toBe(true);
    expect(FieldSelector.parse("constructor=").matches({})).toBe(true);
  });

  it("ANDs terms", () => {
    expect(
      FieldSelector.parse("metadata.name=web,metadata.namespace=default").matches(fields),
    ).toBe(true);
    expect(FieldSelector.parse("metadata.name=web,metadata.namespace=kube").matches(fields)).toBe(
      false,
    );
    expect(FieldSelector.everything().matches(fields)).toBe(true);
  });
});

describe("FieldSelector other API", () => {
  it("toString escapes values and round-trips", () => {
    for (const text of ["a=b", "a!=b", "a=x\\,y", "a=\\=\\\\", "a=,b!=c", "metadata.name=web"]) {
      const s = FieldSelector.parse(text);
      const again = FieldSelector.parse(s.toString());
      expect(again.requirements).toEqual(s.requirements);
    }
    expect(FieldSelector.parse("a==b").toString()).toBe("a=b");
    expect(FieldSelector.fromSet({ a: "x,y=z\\" }).toString()).toBe("a=x\\,y\\=z\\\\");
  });

  it("fromSet sorts by field and matches exactly", () => {
    const s = FieldSelector.fromSet({ "metadata.namespace": "ns", "metadata.name": "a" });
    expect(s.toString()).toBe("metadata.name=a,metadata.namespace=ns");
    expect(s.matches({ "metadata.name": "a", "metadata.namespace": "ns" })).toBe(true);
    expect(s.matches({ "metadata.name": "a" })).toBe(false);
    expect(FieldSelector.fromSet({}).isEmpty()).toBe(true);
  });

  it("exactMatch returns the value of the first = term only", () => {
    const s = FieldSelector.parse("metadata.name!=x,metadata.namespace=ns,metadata.name=web");
    expect(s.exactMatch("metadata.name")).toBe("web");
    expect(s.exactMatch("metadata.namespace")).toBe("ns");
    expect(FieldSelector.parse("metadata.name!=x").exactMatch("metadata.name")).toBeUndefined();
    expect(FieldSelector.parse("metadata.name=").exactMatch("metadata.name")).toBe("");
    expect(FieldSelector.everything().exactMatch("metadata.name")).toBeUndefined();
  });

  it("isEmpty and immutability", () => {
    const s = FieldSelector.parse("a=b");
    expect(s.isEmpty()).toBe(false);
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(Object.isFrozen(s.requirements[0])).toBe(true);
  });
});
