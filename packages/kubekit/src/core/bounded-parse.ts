/**
 * Bounded parsing of untrusted JSON and YAML text: input size, nesting depth and (for YAML)
 * alias-expanded size are checked before the text can exhaust the stack, the heap or the
 * CPU. A document that fails any check, or is malformed, is a {@link BoundedParseError} that
 * says which limit was hit and where (line and column), never quoting the input: parser
 * messages echo source text, and the source may hold a secret (a kubeconfig token next to a
 * typo), so they are never passed through.
 *
 * Limits, with where each value comes from:
 * - input size 3 MiB: kube-apiserver's request body limit, `MaxRequestBodyBytes` in
 *   `staging/src/k8s.io/apiserver/pkg/server/config.go`;
 * - JSON depth 10000: `maxNestingDepth` of Go's `encoding/json/scanner.go`, which
 *   kube-apiserver's JSON decoder (`sigs.k8s.io/json`, a fork of it) enforces;
 * - YAML depth 500: go-yaml refuses flow nesting past 10000 (`max_flow_level` in
 *   `gopkg.in/yaml.v3/scannerc.go`), but the `yaml` package composes documents recursively
 *   and exhausts Node's default stack at about 700-900 levels (and a stack overflow inside
 *   its regular expressions aborts the process), so kubekit stops at 500;
 * - YAML expanded size 3 MiB: go-yaml bounds alias expansion by the ratio of alias-driven
 *   to all decode operations (`allowedAliasRatio` in `gopkg.in/yaml.v3/decode.go`: 99% up
 *   to 400,000 operations, 10% from 4,000,000); kubekit bounds the expanded size itself:
 *   with every alias replaced by its anchored node, a document may be no larger than the
 *   largest body kube-apiserver accepts.
 *
 * Pure computation, no I/O.
 */
import {
  Composer,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Parser,
  visit,
  type CST,
  type Scalar,
  type YAMLMap,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from "yaml";
import type { JsonValue } from "./json.js";

/**
 * kube-apiserver's request body limit, 3 MiB: `MaxRequestBodyBytes` in
 * `staging/src/k8s.io/apiserver/pkg/server/config.go`.
 */
export const MAX_INPUT_BYTES = 3 * 1024 * 1024;

/** Limits of {@link parseJsonBounded}. */
export interface JsonParseLimits {
  /** Largest accepted input, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Deepest accepted nesting of arrays and objects (the top-level value is depth 1). */
  readonly maxDepth: number;
}

/** Limits of {@link parseYamlBounded}. */
export interface YamlParseLimits extends JsonParseLimits {
  /**
   * Largest accepted expanded size: the source length of every scalar plus one per
   * collection and pair, an alias counting as the expanded size of its anchored node.
   * Without aliases this is at most the input length.
   */
  readonly maxExpandedSize: number;
}

/**
 * The JSON limits kube-apiserver applies: {@link MAX_INPUT_BYTES}, and depth 10000, the
 * `maxNestingDepth` of Go's `encoding/json/scanner.go` that its decoder (`sigs.k8s.io/json`)
 * enforces.
 */
export const DEFAULT_JSON_PARSE_LIMITS: Readonly<JsonParseLimits> = Object.freeze({
  maxBytes: MAX_INPUT_BYTES,
  maxDepth: 10_000,
});

/**
 * kubekit's YAML limits: {@link MAX_INPUT_BYTES}; depth 500, below the 700-900 levels at which
 * the `yaml` package's recursive composer exhausts Node's default stack (go-yaml allows 10000,
 * `max_flow_level` in `gopkg.in/yaml.v3/scannerc.go`); expanded size {@link MAX_INPUT_BYTES}
 * (go-yaml instead limits the share of alias-driven decode operations, `allowedAliasRatio`
 * in `gopkg.in/yaml.v3/decode.go`).
 */
export const DEFAULT_YAML_PARSE_LIMITS: Readonly<YamlParseLimits> = Object.freeze({
  maxBytes: MAX_INPUT_BYTES,
  maxDepth: 500,
  maxExpandedSize: MAX_INPUT_BYTES,
});

/** Which check a document failed. */
export type BoundedParseFailure =
  /** Larger than `maxBytes`. */
  | "tooLarge"
  /** Nested deeper than `maxDepth`. */
  | "tooDeep"
  /** Aliases expand it past `maxExpandedSize`, or an alias refers to a node containing it. */
  | "aliasExpansion"
  /** Not well-formed JSON or YAML. */
  | "syntax";

/** Details of a {@link BoundedParseError}. */
export interface BoundedParseErrorDetails {
  readonly format: "json" | "yaml";
  readonly reason: BoundedParseFailure;
  /** What is wrong, never quoting the input. */
  readonly problem: string;
  /** The limit that was exceeded, for every reason but `syntax`. */
  readonly limit?: number;
  /** 1-based line of the problem, when known. */
  readonly line?: number;
  /** 1-based column of the problem, when known. */
  readonly column?: number;
}

/**
 * JSON or YAML input that was rejected: too large, too deep, too much alias expansion, or
 * malformed. The message is `<problem> at line L, column C` and never contains input text.
 */
export class BoundedParseError extends Error {
  override name = "BoundedParseError";
  readonly format: "json" | "yaml";
  readonly reason: BoundedParseFailure;
  /** What is wrong, without the position. */
  readonly problem: string;
  readonly limit: number | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(details: BoundedParseErrorDetails) {
    const at =
      details.line === undefined ? "" : ` at line ${details.line}, column ${details.column ?? 1}`;
    super(`${details.problem}${at}`);
    this.format = details.format;
    this.reason = details.reason;
    this.problem = details.problem;
    this.limit = details.limit;
    this.line = details.line;
    this.column = details.column;
  }
}

/** 1-based line and column of a UTF-16 offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: end - lineStart + 1 };
}

function checkSize(text: string, format: "json" | "yaml", maxBytes: number): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: count bytes only when the length is not enough.
  if (text.length * 3 <= maxBytes) return;
  if (text.length > maxBytes || Buffer.byteLength(text, "utf8") > maxBytes) {
    throw new BoundedParseError({
      format,
      reason: "tooLarge",
      problem: `${format === "json" ? "JSON" : "YAML"} input is larger than ${maxBytes} bytes`,
      limit: maxBytes,
    });
  }
}

/**
 * The offset where arrays and objects nest deeper than `maxDepth`, or -1. A linear scan that
 * skips string literals; it does not validate (malformed input is left to `JSON.parse`).
 */
function jsonDepthExceededAt(text: string, maxDepth: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

/**
 * Parses JSON text within `limits` (defaults: `DEFAULT_JSON_PARSE_LIMITS`: 3 MiB, depth 10 000).
 *
 * @throws {BoundedParseError} when the text is too large, too deep or malformed; the
 *   message gives the position of a syntax error, never the text around it.
 */
export function parseJsonBounded(text: string, limits: Partial<JsonParseLimits> = {}): JsonValue {
  const { maxBytes, maxDepth } = { ...DEFAULT_JSON_PARSE_LIMITS, ...limits };
  checkSize(text, "json", maxBytes);
  const deepAt = jsonDepthExceededAt(text, maxDepth);
  if (deepAt !== -1) {
    throw new BoundedParseError({
      format: "json",
      reason: "tooDeep",
      problem: `JSON input is nested deeper than ${maxDepth} levels`,
      limit: maxDepth,
      ...lineAndColumn(text, deepAt),
    });
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    // V8's messages quote the input ("Unexpected token 'x', "...secret..." is not valid
    // JSON"): keep only the position it names, if any.
    const position = /position (\d+)/.exec((err as Error).message)?.[1];
    const problem = text.trim() === "" ? "empty JSON input" : "malformed JSON";
    throw new BoundedParseError({
      format: "json",
      reason: "syntax",
      problem,
      ...(position !== undefined && lineAndColumn(text, Number(position))),
    });
  }
}

/** Options of {@link parseYamlBounded}. */
export interface YamlParseOptions {
  /** Overrides of the defaults (`DEFAULT_YAML_PARSE_LIMITS`: 3 MiB, depth 500). */
  readonly limits?: Partial<YamlParseLimits>;
  /**
   * Whether a mapping key may not repeat (default true, as in the `yaml` package); when
   * false the last value wins, as in go-yaml v2. Keys are compared by their scalar value, in
   * linear time (the `yaml` package's own check is quadratic: minutes for 100,000 keys).
   */
  readonly uniqueKeys?: boolean;
  /**
   * Options for the `yaml` package (schema, version, custom tags). Key uniqueness, error
   * rendering and alias handling are kubekit's.
   */
  readonly yaml?: Omit<ParseOptions & DocumentOptions & SchemaOptions, "uniqueKeys">;
}

/** Generic descriptions of the `yaml` package's error codes (its messages quote source). */
const YAML_PROBLEMS: Readonly<Record<string, string>> = {
  ALIAS_PROPS: "an alias cannot have a tag or anchor",
  BAD_ALIAS: "an alias refers to an undefined anchor",
  BAD_DIRECTIVE: "invalid directive",
  BAD_DQ_ESCAPE: "invalid escape in a double-quoted string",
  BAD_INDENT: "bad indentation",
  BAD_PROP_ORDER: "anchor and tag in the wrong place",
  BAD_SCALAR_START: "a plain scalar cannot start with this character",
  BLOCK_AS_IMPLICIT_KEY: "a block collection cannot be an implicit key",
  BLOCK_IN_FLOW: "a block collection cannot be inside a flow collection",
  DUPLICATE_KEY: "duplicate mapping key",
  MISSING_CHAR: "a closing character is missing",
  MULTILINE_IMPLICIT_KEY: "an implicit key cannot span lines",
  MULTIPLE_ANCHORS: "a node has more than one anchor",
  MULTIPLE_DOCS: "more than one document",
  MULTIPLE_TAGS: "a node has more than one tag",
  NON_STRING_KEY: "a mapping key is not a string",
  TAB_AS_INDENT: "a tab character used for indentation",
  TAG_RESOLVE_FAILED: "a tag cannot be resolved",
  UNEXPECTED_TOKEN: "unexpected token",
  BAD_COLLECTION_TYPE: "a collection tag does not match the collection",
};

function yamlSyntaxError(text: string, offset: number, problem: string): BoundedParseError {
  return new BoundedParseError({
    format: "yaml",
    reason: "syntax",
    problem: `invalid YAML: ${problem}`,
    ...lineAndColumn(text, offset),
  });
}

/** Whether a CST collection item is an implicit single-pair mapping in a flow sequence. */
function isFlowPair(item: CST.CollectionItem): boolean {
  return item.sep?.some((t) => t.type === "map-value-ind") === true;
}

/**
 * Walks a CST document in document order without recursion (the composer that turns it into
 * nodes recurses, and a stack overflow inside its regular expressions aborts Node): fails at the first error token, or where
 * collections nest deeper than `maxDepth`. An implicit pair in a flow sequence (`[a: b]`)
 * counts as a level, as the composer makes a mapping of it.
 */
function checkCst(text: string, root: CST.Token, maxDepth: number): void {
  const stack: Array<{ token: CST.Token; depth: number }> = [{ token: root, depth: 0 }];
  // Children are pushed last to first, so that they are checked first to last.
  const pushReversed = (tokens: ReadonlyArray<CST.Token | null | undefined>, depth: number) => {
    for (let i = tokens.length - 1; i >= 0; i--) {
      const token = tokens[i];
      if (token !== null && token !== undefined) stack.push({ token, depth });
    }
  };
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    switch (token.type) {
      case "error":
        throw yamlSyntaxError(text, token.offset, "unexpected or malformed content");
      case "document":
        pushReversed([...token.start, token.value, ...(token.end ?? [])], depth);
        break;
      case "block-scalar":
        pushReversed(token.props, depth);
        break;
      case "block-map":
      case "block-seq":
      case "flow-collection": {
        const level = depth + 1;
        if (level > maxDepth) {
          throw new BoundedParseError({
            format: "yaml",
            reason: "tooDeep",
            problem: `YAML input is nested deeper than ${maxDepth} levels`,
            limit: maxDepth,
            ...lineAndColumn(text, token.offset),
          });
        }
        if (token.type === "flow-collection") pushReversed(token.end, level);
        for (let i = token.items.length - 1; i >= 0; i--) {
          const item = token.items[i] as CST.CollectionItem;
          const pair =
            token.type === "flow-collection" && token.start.source === "[" && isFlowPair(item);
          pushReversed(
            [...item.start, item.key, ...(item.sep ?? []), item.value],
            pair ? level + 1 : level,
          );
        }
        break;
      }
      default:
        if ("end" in token && token.end !== undefined) pushReversed(token.end, depth);
    }
  }
}

/**
 * The first document of `text`, composed only after its CST passed {@link checkCst}; later
 * documents are not parsed. `undefined` for a stream without documents.
 */
function composeFirstDocument(
  text: string,
  maxDepth: number,
  options: ParseOptions & DocumentOptions & SchemaOptions,
): Document.Parsed | undefined {
  const composer = new Composer(options);
  const parser = new Parser();
  let seenDocument = false;
  try {
    for (const token of parser.parse(text)) {
      if (token.type === "document") {
        if (seenDocument) break;
        seenDocument = true;
      }
      checkCst(text, token, maxDepth);
      for (const doc of composer.next(token)) return doc;
    }
  } catch (error) {
    // The CST parser recurses when it closes or reopens many collections at once (e.g. a
    // thousand compact `- - -` after a mapping); it has no regular expressions, so a stack
    // overflow there is an ordinary RangeError.
    if (!(error instanceof RangeError)) throw error;
    throw new BoundedParseError({
      format: "yaml",
      reason: "tooDeep",
      problem: `YAML input is nested too deeply to parse (limit ${maxDepth} levels)`,
      limit: maxDepth,
      ...lineAndColumn(text, parser.offset),
    });
  }
  for (const doc of composer.end()) return doc;
  return undefined;
}

type YamlNode = NonNullable<Document.Parsed["contents"]>;

/** A repeated scalar key of `map` (merge keys `<<` aside), if any. */
function repeatedKey(map: YAMLMap<unknown, unknown>): Scalar | undefined {
  const seen = new Set<string>();
  for (const { key } of map.items) {
    if (!isScalar(key) || key.value === MERGE_KEY) continue;
    const id = `${typeof key.value}:${String(key.value)}`;
    if (seen.has(id)) return key;
    seen.add(id);
  }
  return undefined;
}

const MERGE_KEY = "<<";

/**
 * Replaces every alias in `doc` by its anchored node (so that converting the document costs
 * time proportional to its expanded size, and each occurrence becomes its own copy), after
 * checking that the expanded size stays within `maxExpandedSize` and no alias refers to a
 * node that contains it. Aliases resolve as in the `yaml` package: to the last node with the
 * anchor before the alias, in document order. With `uniqueKeys`, also fails at the first
 * repeated mapping key.
 */
function expandAliases(
  text: string,
  doc: Document.Parsed,
  maxExpandedSize: number,
  uniqueKeys: boolean,
): void {
  const anchors = new Map<string, YamlNode>();
  const targets = new Map<unknown, YamlNode>();
  visit(doc, {
    Node: (_key, node) => {
      if (uniqueKeys && isMap(node)) {
        const repeated = repeatedKey(node);
        if (repeated !== undefined) {
          throw yamlSyntaxError(
            text,
            repeated.range?.[0] ?? 0,
            YAML_PROBLEMS["DUPLICATE_KEY"] ?? "",
          );
        }
      }
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target === undefined) {
          throw yamlSyntaxError(text, node.range?.[0] ?? 0, YAML_PROBLEMS["BAD_ALIAS"] ?? "");
        }
        targets.set(node, target);
      } else if (node.anchor !== undefined) {
        anchors.set(node.anchor, node as YamlNode);
      }
    },
  });
  if (targets.size === 0) return;

  const sizes = new Map<unknown, number>();
  const inProgress = new Set<unknown>();
  const tooMuch = (problem: string, offset: number): BoundedParseError =>
    new BoundedParseError({
      format: "yaml",
      reason: "aliasExpansion",
      problem,
      limit: maxExpandedSize,
      ...lineAndColumn(text, offset),
    });
  // Recursion is bounded by the depth limit checked on the CST.
  const sizeOf = (node: unknown): number => {
    if (node === null || node === undefined) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (inProgress.has(node)) {
      const offset = (node as { range?: [number] }).range?.[0] ?? 0;
      throw tooMuch("a YAML alias refers to a node that contains it", offset);
    }
    inProgress.add(node);
    let size = 1;
    if (isAlias(node)) {
      size = sizeOf(targets.get(node));
    } else if (isScalar(node)) {
      size = Math.max(1, (node.range?.[1] ?? 1) - (node.range?.[0] ?? 0));
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items as unknown[]) {
        size += isPair(item) ? 1 + sizeOf(item.key) + sizeOf(item.value) : sizeOf(item);
        if (size > maxExpandedSize) break;
      }
    }
    inProgress.delete(node);
    if (size > maxExpandedSize) {
      const offset = (node as { range?: [number] }).range?.[0] ?? 0;
      throw tooMuch(`YAML aliases expand the input past ${maxExpandedSize}`, offset);
    }
    sizes.set(node, size);
    return size;
  };
  sizeOf(doc.contents);

  visit(doc, {
    Alias: (_key, node) => targets.get(node),
  });
}

/**
 * Parses the first document of YAML text within `limits` (defaults:
 * `DEFAULT_YAML_PARSE_LIMITS`) into plain values; later documents are ignored, as
 * go-yaml's `Unmarshal` (used by `sigs.k8s.io/yaml`) does. Text without a document (empty,
 * comments only) yields `null`. Parsing stops at the first error and every check is linear,
 * so its cost is linear in the input (plus the expanded size). Each alias becomes its own
 * copy of the anchored value.
 *
 * @throws {BoundedParseError} when the text is too large, too deep, expands past the limit
 *   through aliases, or is malformed; the message names the problem and its line and
 *   column, never the input text.
 */
export function parseYamlBounded(text: string, options: YamlParseOptions = {}): unknown {
  const limits = { ...DEFAULT_YAML_PARSE_LIMITS, ...options.limits };
  checkSize(text, "yaml", limits.maxBytes);
  const yamlOptions = { ...options.yaml, uniqueKeys: false, prettyErrors: false };
  const doc = composeFirstDocument(text, limits.maxDepth, yamlOptions);
  if (doc === undefined) return null;
  const error = doc.errors[0];
  if (error !== undefined) {
    throw yamlSyntaxError(text, error.pos[0], YAML_PROBLEMS[error.code] ?? "malformed YAML");
  }
  expandAliases(text, doc, limits.maxExpandedSize, options.uniqueKeys ?? true);
  try {
    return doc.toJS({ maxAliasCount: -1 }) as unknown;
  } catch {
    // A custom tag's resolver or the schema rejected a value; its message may quote it.
    throw new BoundedParseError({
      format: "yaml",
      reason: "syntax",
      problem: "invalid YAML: a value cannot be converted",
    });
  }
}
