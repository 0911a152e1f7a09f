import { describe, expect, it } from "vitest";
import { LabelSelector, SelectorParseError } from "kubekit";

function parseError(text: string): SelectorParseError {
  try {
    LabelSelector.parse(text);
  } catch (e) {
    if (e instanceof SelectorParseError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("LabelSelector.parse: operators", () => {
  it("parses equality forms", () => {
    expect(LabelSelector.parse("a=b").requirements).toEqual([
      { key: "a", operator: "=", values: ["b"] },
    ]);
    expect(LabelSelector.parse("a==b").requirements).toEqual([
      { key: "a", operator: "==", values: ["b"] },
    ]);
    expect(LabelSelector.parse("a!=b").requirements).toEqual([
      { key: "a", operator: "!=", values: ["b"] },
    ]);
  });

  it("parses set forms, sorting and deduplicating values", () => {
    expect(LabelSelector.parse("env in (prod, dev, prod)").requirements).toEqual([
      { key: "env", operator: "in", values: ["dev", "prod"] },
    ]);
    expect(LabelSelector.parse("env notin (qa)").requirements).toEqual([
      { key: "env", operator: "notin", values: ["qa"] },
    ]);
  });

  it("parses existence and non-existence", () => {
    expect(LabelSelector.parse("a").requirements).toEqual([
      { key: "a", operator: "exists", values: [] },
    ]);
    expect(LabelSelector.parse("!a").requirements).toEqual([
      { key: "a", operator: "!", values: [] },
    ]);
    expect(LabelSelector.parse("! a").requirements).toEqual([
      { key: "a", operator: "!", values: [] },
    ]);
  });

  it("parses integer comparisons", () => {
    expect(LabelSelector.parse("a>5,b<10").requirements).toEqual([
      { key: "a", operator: "gt", values: ["5"] },
      { key: "b", operator: "lt", values: ["10"] },
    ]);
  });

  it("accepts prefixed keys", () => {
    expect(LabelSelector.parse("app.kubernetes.io/name=web").requirements[0]?.key).toBe(
      "app.kubernetes.io/name",
    );
  });
});

describe("LabelSelector.parse: whitespace, empty values, keywords", () => {
  it("allows whitespace around tokens", () => {
    const s = LabelSelector.parse("  a = b ,\tc\n!=\rd , e in ( x , y ) ");
    expect(s.toString()).toBe("a=b,c!=d,e in (x,y)");
  });

  it("accepts empty values", () => {
    expect(LabelSelector.parse("a=").requirements[0]?.values).toEqual([""]);
    expect(LabelSelector.parse("a==,b!=").toString()).toBe("a==,b!=");
  });

  it("treats () and empty list items as the empty value (apimachinery quirk)", () => {
    expect(LabelSelector.parse("a in ()").requirements[0]?.values).toEqual([""]);
    expect(LabelSelector.parse("a in (,b)").requirements[0]?.values).toEqual(["", "b"]);
    expect(LabelSelector.parse("a in (b,)").requirements[0]?.values).toEqual(["", "b"]);
    expect(LabelSelector.parse("a in (b,,c)").requirements[0]?.values).toEqual(["", "b", "c"]);
    expect(LabelSelector.parse("x in (foo,,baz),y,z notin ()").toString()).toBe(
      "x in (,baz,foo),y,z notin ()",
    );
  });

  // apimachinery's TestSetSelectorParser (labels/selector_test.go): after ",," the second
  // comma is only looked at, so a run of commas before ")" or a value is one empty value.
  it.each(["x in (a,,)", "x in (a,,,)", "x in (a,,,,,,)", "x in (a,,a,,a,,a,,)"])(
    "parses runs of commas %j as the empty value",
    (text) => {
      expect(LabelSelector.parse(text).requirements).toEqual([
        { key: "x", operator: "in", values: ["", "a"] },
      ]);
    },
  );

  it("treats in/notin as plain words in key and value position", () => {
    expect(LabelSelector.parse("in in (in, notin)").requirements).toEqual([
      { key: "in", operator: "in", values: ["in", "notin"] },
    ]);
    expect(LabelSelector.parse("notin=in").requirements).toEqual([
      { key: "notin", operator: "=", values: ["in"] },
    ]);
  });

  it("parses the empty string as everything", () => {
    const s = LabelSelector.parse("");
    expect(s.isEmpty()).toBe(true);
    expect(LabelSelector.parse("   ").isEmpty()).toBe(true);
  });

  it("ends the input at a NUL character, like apimachinery's lexer", () => {
    expect(LabelSelector.parse("\u0000a=b").isEmpty()).toBe(true);
    expect(LabelSelector.parse("a=\u0000b").toString()).toBe("a=b");
  });

  it("sorts requirements by key, stably", () => {
    const s = LabelSelector.parse("z,b=2,a!=1,b!=3");
    expect(s.requirements.map((r) => `${r.key}${r.operator}`)).toEqual([
      "a!=",
      "b=",
      "b!=",
      "zexists",
    ]);
    expect(s.toString()).toBe("a!=1,b=2,b!=3,z");
  });
});

describe("LabelSelector.parse: errors with apimachinery's messages and positions", () => {
  const cases: [string, string, number][] = [
    ["a,", "found '', expected: identifier after ','", 2],
    [",a", "found ',', expected: !, identifier, or 'end of string'", 0],
    ["a,,b", "found ',', expected: identifier after ','", 2],
    ["a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt", 2],
    ["a!", "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt", 1],
    ["a=b c", "found 'c', expected: ',' or 'end of string'", 4],
    ["!a=b", "found '=', expected: ',' or 'end of string'", 2],
    ["!", "unable to parse requirement: found '', expected: identifier", 1],
    ["!!a", "unable to parse requirement: found '!', expected: identifier", 1],
    ["a in x", "unable to parse requirement: found 'x' expected: '('", 5],
    ["a notin", "unable to parse requirement: found '' expected: '('", 7],
    ["a in (x", "unable to parse requirement: found '', expected: ',' or ')'", 7],
    ["a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'", 8],
    ["a in (", "unable to parse requirement: found '', expected: ',', ')' or identifier", 6],
    ["a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier", 6],
    ["a in (,", "unable to parse requirement: found '', expected: ',', or identifier", 7],
    ["a=(b)", "unable to parse requirement: found '(', expected: identifier", 2],
    ["a===b", "unable to parse requirement: found '=', expected: identifier", 3],
    [")", "found ')', expected: !, identifier, or 'end of string'", 0],
  ];
  for (const [text, message, position] of cases) {
    it(`${JSON.stringify(text)} → ${message}`, () => {
      const e = parseError(text);
      expect(e.message).toBe(message);
      expect(e.position).toBe(position);
      expect(e.input).toBe(text);
      expect(e.name).toBe("SelectorParseError");
    });
  }

  it("reports an invalid key as a field error with a <nil> path", () => {
    const e = parseError("x=1, -a=b");
    expect(e.message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-a": ${NAME_PART_MSG}`,
    );
    expect(e.position).toBe(5);
  });

  it("joins several key problems with '; '", () => {
    expect(parseError("kubernetes.io/").message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "kubernetes.io/": name part must be non-empty; ${NAME_PART_MSG}`,
    );
  });

  it("reports an invalid value with its index and key", () => {
    const e = parseError("app in (z, -b)");
    expect(e.message).toBe(
      `unable to parse requirement: values[0][app]: Invalid value: "-b": ${LABEL_VALUE_MSG}`,
    );
    expect(e.position).toBe(11);
    expect(parseError("app=a.").message).toBe(
      `unable to parse requirement: values[0][app]: Invalid value: "a.": ${LABEL_VALUE_MSG}`,
    );
  });

  it("rejects values longer than 63 characters", () => {
    expect(parseError(`a=${"x".repeat(64)}`).message).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "${"x".repeat(64)}": must be no more than 63 characters`,
    );
  });

  it("requires integers for > and <", () => {
    const e = parseError("a>b");
    expect(e.message).toBe(
      `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(e.position).toBe(2);
    expect(parseError("a<99999999999999999999").message).toMatch(/must be an integer/);
    expect(parseError("a>").message).toMatch(/values\[0\]: Invalid value: "": for 'Gt'/);
  });

  it("aggregates several problems of one requirement in brackets", () => {
    // -5 parses as an integer but is not a valid label value; "b." is neither.
    expect(parseError("a>-5").message).toBe(
      `unable to parse requirement: values[0][a]: Invalid value: "-5": ${LABEL_VALUE_MSG}`,
    );
    expect(parseError("a>b.").message).toBe(
      `unable to parse requirement: [values[0]: Invalid value: "b.": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: "b.": ${LABEL_VALUE_MSG}]`,
    );
  });
});

describe("LabelSelector.matches", () => {
  const labels = { app: "web", tier: "fe", n: "5" };

  it("matches equality and inequality", () => {
    expect(LabelSelector.parse("app=web").matches(labels)).toBe(true);
    expect(LabelSelector.parse("app==db").matches(labels)).toBe(false);
    expect(LabelSelector.parse("app!=db").matches(labels)).toBe(true);
    expect(LabelSelector.parse("app!=web").matches(labels)).toBe(false);
    expect(LabelSelector.parse("missing!=x").matches(labels)).toBe(true);
    expect(LabelSelector.parse("missing=x").matches(labels)).toBe(false);
  });

  it("matches an empty value only when the label exists and is empty", () => {
    expect(LabelSelector.parse("a=").matches({ a: "" })).toBe(true);
    expect(LabelSelector.parse("a=").matches({})).toBe(false);
    expect(LabelSelector.parse("a!=").matches({})).toBe(true);
    expect(LabelSelector.parse("a!=").matches({ a: "" })).toBe(false);
  });

  it("matches set operators", () => {
    expect(LabelSelector.parse("tier in (fe,be)").matches(labels)).toBe(true);
    expect(LabelSelector.parse("tier in (be)").matches(labels)).toBe(false);
    expect(LabelSelector.parse("missing in (x)").matches(labels)).toBe(false);
    expect(LabelSelector.parse("tier notin (be)").matches(labels)).toBe(true);
    expect(LabelSelector.parse("tier notin (fe)").matches(labels)).toBe(false);
    expect(LabelSelector.parse("missing notin (x)").matches(labels)).toBe(true);
  });

  it("matches existence", () => {
    expect(LabelSelector.parse("app").matches(labels)).toBe(true);
    expect(LabelSelector.parse("!app").matches(labels)).toBe(false);
    expect(LabelSelector.parse("!missing").matches(labels)).toBe(true);
    expect(LabelSelector.parse("missing").matches(labels)).toBe(false);
  });

  it("compares integers, failing on absent or non-integer labels", () => {
    expect(LabelSelector.parse("n>4").matches(labels)).toBe(true);
    expect(LabelSelector.parse("n>5").matches(labels)).toBe(false);
    expect(LabelSelector.parse("n<6").matches(labels)).toBe(true);
    expect(LabelSelector.parse("n<5").matches(labels)).toBe(false);
    expect(LabelSelector.parse("n>10").matches({ n: "9" })).toBe(false); // numeric, not lexical
    expect(LabelSelector.parse("missing<100").matches(labels)).toBe(false);
    expect(LabelSelector.parse("app>0").matches(labels)).toBe(false); // "web" is not an integer
  });

  it("handles the label side of integer comparison like strconv.ParseInt", () => {
    const gt = LabelSelector.parse("n>0");
    expect(gt.matches({ n: "-3" })).toBe(false);
    expect(gt.matches({ n: "+3" })).toBe(true);
    expect(gt.matches({ n: "007" })).toBe(true);
    expect(gt.matches({ n: "x" })).toBe(false);
    expect(gt.matches({ n: "3.5" })).toBe(false);
    expect(gt.matches({ n: "9223372036854775807" })).toBe(true);
    expect(gt.matches({ n: "9223372036854775808" })).toBe(false);
    expect(gt.matches({})).toBe(false);
  });

  it("ANDs requirements", () => {
    expect(LabelSelector.parse("app=web,tier=fe").matches(labels)).toBe(true);
    expect(LabelSelector.parse("app=web,tier=be").matches(labels)).toBe(false);
  });

  it("treats undefined labels as the empty set and ignores inherited properties", () => {
    expect(LabelSelector.parse("!a").matches(undefined)).toBe(true);
    expect(LabelSelector.parse("a").matches(undefined)).toBe(false);
    expect(LabelSelector.parse("toString").matches({})).toBe(false);
    expect(LabelSelector.everything().matches(undefined)).toBe(true);
  });
});

describe("LabelSelector.toString round-trips", () => {
  const texts = [
    "a=b",
    "a==b",
    "a!=b",
    "a in (x,y)",
    "a notin (x)",
    "a",
    "!a",
    "a>1",
    "a<2",
    "a=,b!=",
    "a in ()",
    "example.com/key in (,v1,v2),other,!gone",
  ];
  for (const text of texts) {
    it(JSON.stringify(text), () => {
      const s = LabelSelector.parse(text);
      const again = LabelSelector.parse(s.toString());
      expect(again.requirements).toEqual(s.requirements);
      expect(again.toString()).toBe(s.toString());
    });
  }

  it("canonicalizes order and spacing", () => {
    expect(LabelSelector.parse("z in (b, a),a = 1").toString()).toBe("a=1,z in (a,b)");
  });
});

describe("LabelSelector constructors", () => {
  it("everything matches all and is empty", () => {
    const s = LabelSelector.everything();
    expect(s.isEmpty()).toBe(true);
    expect(s.toString()).toBe("");
    expect(s.matches({ a: "b" })).toBe(true);
  });

  it("nothing matches nothing and is not empty", () => {
    const s = LabelSelector.nothing();
    expect(s.isEmpty()).toBe(false);
    expect(s.matches({})).toBe(false);
    expect(s.matches(undefined)).toBe(false);
    expect(s.requirements).toEqual([]);
  });

  it("fromSet builds sorted equality requirements without validation", () => {
    const s = LabelSelector.fromSet({ b: "2", a: "1" });
    expect(s.toString()).toBe("a=1,b=2");
    expect(s.matches({ a: "1", b: "2", c: "3" })).toBe(true);
    expect(s.matches({ a: "1" })).toBe(false);
    expect(LabelSelector.fromSet({}).isEmpty()).toBe(true);
    expect(LabelSelector.fromSet({ "bad key": "x y" }).requirements).toHaveLength(1);
  });

  it("is immutable", () => {
    const s = LabelSelector.parse("a in (x)");
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(Object.isFrozen(s.requirements[0])).toBe(true);
    expect(Object.isFrozen(s.requirements[0]?.values)).toBe(true);
  });
});

describe("LabelSelector.fromLabelSelector", () => {
  function structuredError(sel: Parameters<typeof LabelSelector.fromLabelSelector>[0]) {
    try {
      LabelSelector.fromLabelSelector(sel);
    } catch (e) {
      if (e instanceof SelectorParseError) return e;
      throw e;
    }
    throw new Error("expected an error");
  }

  it("converts matchLabels and each operator", () => {
    const s = LabelSelector.fromLabelSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["fe", "be"] },
        { key: "env", operator: "NotIn", values: ["qa"] },
        { key: "team", operator: "Exists" },
        { key: "canary", operator: "DoesNotExist" },
      ],
    });
    expect(s.requirements).toEqual([
      { key: "app", operator: "=", values: ["web"] },
      { key: "canary", operator: "!", values: [] },
      { key: "env", operator: "notin", values: ["qa"] },
      { key: "team", operator: "exists", values: [] },
      { key: "tier", operator: "in", values: ["fe", "be"] },
    ]);
    expect(s.toString()).toBe("app=web,!canary,env notin (qa),team,tier in (be,fe)");
    expect(s.matches({ app: "web", team: "x", tier: "be" })).toBe(true);
    expect(s.matches({ app: "web", team: "x", tier: "be", canary: "1" })).toBe(false);
  });

  it("maps null to nothing and {} to everything", () => {
    expect(LabelSelector.fromLabelSelector(null).matches({})).toBe(false);
    expect(LabelSelector.fromLabelSelector(undefined).isEmpty()).toBe(false);
    expect(LabelSelector.fromLabelSelector({}).isEmpty()).toBe(true);
    expect(
      LabelSelector.fromLabelSelector({ matchLabels: {}, matchExpressions: [] }).matches({}),
    ).toBe(true);
  });

  it("rejects an unknown operator", () => {
    const e = structuredError({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] });
    expect(e.message).toBe('"Gt" is not a valid label selector operator');
    expect(e.position).toBe(-1);
    expect(JSON.parse(e.input)).toEqual({
      matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }],
    });
  });

  it("rejects In/NotIn without values, printing the nil slice as null", () => {
    expect(structuredError({ matchExpressions: [{ key: "a", operator: "In" }] }).message).toBe(
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(
      structuredError({ matchExpressions: [{ key: "a", operator: "NotIn", values: [] }] }).message,
    ).toBe("values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
  });

  it("rejects Exists with values", () => {
    expect(
      structuredError({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] })
        .message,
    ).toBe('values: Invalid value: ["x"]: values set must be empty for exists and does not exist');
  });

  it("rejects invalid keys and values with field paths", () => {
    expect(structuredError({ matchLabels: { "-a": "x" } }).message).toBe(
      `key: Invalid value: "-a": ${NAME_PART_MSG}`,
    );
    expect(structuredError({ matchLabels: { a: "x y" } }).message).toBe(
      `values[0][a]: Invalid value: "x y": ${LABEL_VALUE_MSG}`,
    );
    expect(
      structuredError({ matchExpressions: [{ key: "k", operator: "In", values: ["ok", "-b"] }] })
        .message,
    ).toBe(`values[1][k]: Invalid value: "-b": ${LABEL_VALUE_MSG}`);
  });
});
