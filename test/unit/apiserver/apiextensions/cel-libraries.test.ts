import { describe, expect, it } from "vitest";
import { isCelList, isCelMap, type CelValue } from "@bufbuild/cel";
import { compileCelExpression } from "../../../../packages/apiserver/src/apiextensions/cel/compile-expression.js";
import { DECL, listDecl } from "../../../../packages/apiserver/src/apiextensions/cel/decl-type.js";

const vars = new Map([
  ["s", DECL.STRING],
  ["l", listDecl(DECL.INT, 10)],
]);

function evaluate(source: string, bindings: Record<string, unknown> = {}): CelValue | string {
  const compiled = compileCelExpression(source, { variables: vars });
  if (!compiled.ok) return `compile: ${compiled.error}`;
  const r = compiled.program.evaluate(bindings as never);
  return r.ok ? plain(r.value) : `error: ${r.error}`;
}

/** CEL lists and maps as JS arrays and Maps, for comparisons. */
function plain(v: CelValue): CelValue | string {
  if (isCelList(v)) return Array.from(v, plain) as unknown as CelValue;
  if (isCelMap(v)) return new Map(Array.from(v, ([k, x]) => [k, plain(x)])) as unknown as CelValue;
  return v;
}

const cases = (table: readonly (readonly [string, unknown])[]) =>
  it.each(table)("%s", (source, expected) => expect(evaluate(source)).toEqual(expected));

describe("lists library", () => {
  cases([
    ["[1, 2, 3].isSorted()", true],
    ["[3, 1].isSorted()", false],
    ["['a', 'b'].isSorted()", true],
    ["[1, 2, 3].sum()", 6n],
    ["[1.5, 2.5].sum()", 4],
    ["[].sum()", 0n],
    ["[3, 1, 2].min()", 1n],
    ["[3, 1, 2].max()", 3n],
    ["[].min()", "error: min called on empty list"],
    ["[1, 2, 1].indexOf(1)", 0n],
    ["[1, 2, 1].lastIndexOf(1)", 2n],
    ["[1, 2].indexOf(5)", -1n],
  ]);
});

describe("strings extension", () => {
  cases([
    ["'hello'.charAt(1)", "e"],
    ["'hello'.indexOf('l')", 2n],
    ["'hello'.lastIndexOf('l')", 3n],
    ["'Hello'.lowerAscii()", "hello"],
    ["'Hello'.upperAscii()", "HELLO"],
    ["'a-b-c'.replace('-', '+')", "a+b+c"],
    ["'a,b'.split(',').size()", 2n],
    ["'hello'.substring(1, 3)", "el"],
    ["'  x '.trim()", "x"],
    ["['a', 'b'].join('-')", "a-b"],
  ]);
});

describe("regex library and matches (RE2)", () => {
  cases([
    ["'abc123'.matches('^[a-z]+[0-9]+$')", true],
    ["'abc'.matches('\\\\d')", false],
    ["'abc 123 def 456'.find('[0-9]+')", "123"],
    ["'abc'.find('[0-9]+')", ""],
    ["'abc 123 def 456'.findAll('[0-9]+')", ["123", "456"]],
    ["'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]],
  ]);

  it("refuses an invalid pattern at runtime", () => {
    expect(String(evaluate("'a'.matches('[')"))).toMatch(/^error: /);
  });
});

describe("url library", () => {
  cases([
    ["url('https://example.com:8443/a/b?x=1&x=2&y=3').getScheme()", "https"],
    ["url('https://example.com:8443/a/b').getHost()", "example.com:8443"],
    ["url('https://example.com:8443/a/b').getHostname()", "example.com"],
    ["url('https://example.com:8443/a/b').getPort()", "8443"],
    ["url('https://[::1]:80/').getHostname()", "::1"],
    ["url('https://[::1]:80/').getHost()", "[::1]:80"],
    ["url('https://example.com/a%20b').getEscapedPath()", "/a%20b"],
    ["url('https://example.com/?x=1&x=2&y=3').getQuery()['x']", ["1", "2"]],
    ["url('/just/a/path').getHost()", ""],
    ["isURL('https://example.com')", true],
    ["isURL('example.com')", false],
    ["isURL('https://exa mple.com')", false],
  ]);
});

describe("quantity library", () => {
  cases([
    ["quantity('1Gi').isGreaterThan(quantity('1G'))", true],
    ["quantity('500m').isLessThan(quantity('1'))", true],
    ["quantity('1k') == quantity('1000')", true],
    ["quantity('1.5').compareTo(quantity('1500m'))", 0n],
    ["quantity('2Ki').asInteger()", 2048n],
    ["quantity('1.5').isInteger()", false],
    ["quantity('1.5').asApproximateFloat()", 1.5],
    ["quantity('-3').sign()", -1n],
    ["quantity('1').add(quantity('500m')).compareTo(quantity('1.5'))", 0n],
    ["quantity('2').sub(1).asInteger()", 1n],
    ["quantity('1e3').asInteger()", 1000n],
    ["isQuantity('1Mi')", true],
    ["isQuantity('1.5.5')", false],
    ["isQuantity('abc')", false],
    ["quantity('1.5').asInteger()", "error: cannot convert value to integer"],
  ]);
});

describe("ip and cidr libraries", () => {
  cases([
    ["isIP('192.168.0.1')", true],
    ["isIP('192.168.00.1')", false],
    ["isIP('::ffff:1.2.3.4')", false],
    ["isIP('fe80::1%eth0')", false],
    ["ip('192.168.0.1').family()", 4n],
    ["ip('2001:db8::1').family()", 6n],
    ["ip('127.0.0.1').isLoopback()", true],
    ["ip('::1').isLoopback()", true],
    ["ip('0.0.0.0').isUnspecified()", true],
    ["ip('169.254.1.1').isLinkLocalUnicast()", true],
    ["ip('fe80::1').isLinkLocalUnicast()", true],
    ["ip('224.0.0.1').isLinkLocalMulticast()", true],
    ["ip('8.8.8.8').isGlobalUnicast()", true],
    ["ip.isCanonical('2001:db8::1')", true],
    ["ip.isCanonical('2001:DB8::1')", false],
    ["string(ip('2001:0db8:0:0:0:0:0:1'))", "2001:db8::1"],
    ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", true],
    ["cidr('10.0.0.0/8').containsIP('11.1.2.3')", false],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
    ["cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", false],
    ["cidr('10.1.2.3/8').prefixLength()", 8n],
    ["string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"],
    ["string(cidr('10.1.2.3/8').ip())", "10.1.2.3"],
    ["isCIDR('10.0.0.0/33')", false],
    ["isCIDR('2001:db8::/32')", true],
  ]);
});

describe("format library and optionals", () => {
  cases([
    ["format.dns1123Label().validate('my-name').hasValue()", false],
    ["format.dns1123Label().validate('My_Name').value().size() > 0", true],
    ["format.named('dns1123Subdomain').value().validate('a.b').hasValue()", false],
    ["format.named('nope').hasValue()", false],
    ["format.dns1123LabelPrefix().validate('abc-').hasValue()", false],
    ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
    ["optional.of(1).value()", 1n],
    ["optional.none().orValue(2)", 2n],
    ["optional.ofNonZeroValue('').hasValue()", false],
  ]);

  it("gives the validator's messages", () => {
    expect(evaluate("format.dns1123Label().validate('-a').value()")).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe("sets extension", () => {
  cases([
    ["sets.contains([1, 2, 3], [3, 1])", true],
    ["sets.equivalent([1, 2, 2], [2, 1])", true],
    ["sets.intersects([1, 2], [3, 4])", false],
  ]);
});

describe("type checking and errors", () => {
  it("types library calls against declared variables", () => {
    expect(evaluate("s.size() > 1", { s: "abc" })).toBe(true);
    expect(evaluate("l.sum() + 1", { l: [1n, 2n] })).toBe(4n);
    expect(String(evaluate("s.contains(1)"))).toMatch(
      /^compile: ERROR: <input>:1:\d+: found no matching overload for 'contains' applied to 'string.\(int\)'\n \| s.contains\(1\)\n \| \.*\^$/,
    );
    expect(String(evaluate("s +"))).toMatch(/^compile: ERROR: <input>:1:\d+: Syntax error: /);
  });

  it("words runtime errors as cel-go does", () => {
    expect(evaluate("1 / 0")).toBe("error: division by zero");
    expect(evaluate("l[5]", { l: [1n] })).toBe("error: index out of bounds: 5");
  });
});
