/**
 * Names in generated TypeScript: type names built from schema paths as kopium builds its
 * struct names (`kopium/src/analyzer.rs`: the parent's name followed by the property in
 * UpperCamelCase, with heck's word rules), accessor names from plurals, and property keys
 * quoted only where TypeScript requires it.
 */

/** Words as heck splits them: at non-alphanumerics, lower→upper and acronym→word boundaries. */
function words(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .flatMap((part) => part.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []);
}

/**
 * `text` in UpperCamelCase as heck's `ToUpperCamelCase` writes it (kopium's struct names):
 * `fooBar` → `FooBar`, `host_url` → `HostUrl`, `hostURL` → `HostUrl`, `tls-config` → `TlsConfig`.
 */
export function upperCamelCase(text: string): string {
  return words(text)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join("");
}

/** `text` in lowerCamelCase: `my-things` → `myThings`, `websites` → `websites`. */
export function lowerCamelCase(text: string): string {
  const upper = upperCamelCase(text);
  return upper.charAt(0).toLowerCase() + upper.slice(1);
}

/** TypeScript's reserved words, which cannot name a function or a constant. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with implements interface let package private protected " +
    "public static yield await"
  ).split(" "),
);

/** `name` when it can name a declaration, else `name` followed by `suffix`. */
export function declarationName(name: string, suffix: string): string {
  return RESERVED.has(name) || !/^[A-Za-z_$]/.test(name) ? `${name}${suffix}` : name;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript (and prettier's `quoteProps: "as-needed"`) writes it. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}
