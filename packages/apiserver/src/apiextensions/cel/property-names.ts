/**
 * How a schema property name appears to CEL (kube's
 * `apiextensions-apiserver/pkg/apiserver/schema/cel/model/escaping.go`, `k8s.io/apiserver/pkg/cel/escaping.go`):
 * CEL reserved words become `__word__`; `__`, `.`, `-` and `/` become `__underscores__`, `__dot__`,
 * `__dash__` and `__slash__`. Any other character outside `[a-zA-Z0-9_]` (or a leading digit)
 * makes the property inaccessible as a field; such properties are left out of the CEL type.
 */

/** CEL's reserved words, which may not be used as identifiers. */
const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

const ESCAPABLE = /^[a-zA-Z_][a-zA-Z0-9_./-]*$/;

/** The CEL field name of a property, or `undefined` when the property cannot be escaped. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => {
    switch (m) {
      case "__":
        return "__underscores__";
      case ".":
        return "__dot__";
      case "-":
        return "__dash__";
      default:
        return "__slash__";
    }
  });
}
