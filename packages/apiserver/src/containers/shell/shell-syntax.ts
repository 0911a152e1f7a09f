/**
 * The syntax of the simulated `sh`: a subset of the POSIX shell command language
 * (POSIX.1-2017, XCU chapter 2). Supported: simple commands with `NAME=value` prefixes,
 * pipelines (`|`, leading `!`), and-or lists (`&&`, `||`), sequences (`;`, newlines),
 * redirections (`>`, `>>`, `<`, `N>`, `N>>`, `N>&M`), single and double quotes, backslash
 * escapes, `#` comments, parameter expansion (`$NAME`, `${NAME}`, `$?`, `$#`, `$@`, `$*`, `$$`,
 * `$0`–`$9`, `${NAME:-word}`, `${NAME-word}`, `${NAME:+word}`, `${NAME:=word}`, `${#NAME}`),
 * command substitution (`$(…)`, backquotes), arithmetic expansion (`$((…))`), and the compound
 * commands `if`, `for`, `while`, `until`, `case`, `{ …; }` and `( … )` (with redirections
 * after them). Anything else — functions, background jobs (`&`), here-documents and globbing —
 * is refused with a {@link ShellSyntaxError} rather than misread.
 */

/** What `${NAME<op>word}` does when NAME is unset (or, with `:`, empty). */
export type ParameterOperator = ":-" | "-" | ":+" | "+" | ":=" | "=" | "length";

/** One piece of a word; `quoted` parts are not field-split. */
export type WordPart =
  | { readonly kind: "literal"; readonly text: string; readonly quoted: boolean }
  | {
      readonly kind: "parameter";
      readonly name: string;
      readonly quoted: boolean;
      readonly operator?: ParameterOperator;
      readonly operand?: Word;
    }
  | { readonly kind: "command"; readonly script: Script; readonly quoted: boolean }
  | { readonly kind: "arithmetic"; readonly expression: Word; readonly quoted: boolean };

/** A word as written: its parts, expanded to zero or more fields when the command runs. */
export type Word = readonly WordPart[];

/** A redirection: `fd op target`, e.g. `2>&1` is `{ fd: 2, op: ">&", target: "1" }`. */
export interface Redirection {
  readonly fd: number;
  readonly op: ">" | ">>" | "<" | ">&" | "<&";
  readonly target: Word;
}

/** A simple command: variable assignments, words and redirections. */
export interface SimpleCommand {
  readonly kind: "simple";
  readonly assignments: readonly { readonly name: string; readonly value: Word }[];
  readonly words: readonly Word[];
  readonly redirections: readonly Redirection[];
}

/** A compound command (XCU 2.9.4), with the redirections written after it. */
export type CompoundCommand = (
  | {
      readonly kind: "if";
      readonly clauses: readonly { readonly condition: Script; readonly body: Script }[];
      readonly otherwise: Script | undefined;
    }
  | {
      readonly kind: "for";
      readonly name: string;
      readonly words: readonly Word[] | undefined;
      readonly body: Script;
    }
  | {
      readonly kind: "while";
      readonly until: boolean;
      readonly condition: Script;
      readonly body: Script;
    }
  | {
      readonly kind: "case";
      readonly subject: Word;
      readonly items: readonly { readonly patterns: readonly Word[]; readonly body: Script }[];
    }
  | { readonly kind: "group"; readonly subshell: boolean; readonly body: Script }
) & { readonly redirections: readonly Redirection[] };

/** Any command of a pipeline. */
export type ShellCommand = SimpleCommand | CompoundCommand;

/** Commands joined by `|`; `negated` for a leading `!`. */
export interface Pipeline {
  readonly negated: boolean;
  readonly commands: readonly ShellCommand[];
}

/** Pipelines joined by `&&` / `||`, evaluated left to right. */
export interface AndOrList {
  readonly first: Pipeline;
  readonly rest: readonly { readonly op: "&&" | "||"; readonly pipeline: Pipeline }[];
}

/** A script: and-or lists run one after the other. */
export type Script = readonly AndOrList[];

/** A script the simulated shell cannot run; the message is what `sh` prints after `sh: `. */
export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShellSyntaxError";
  }
}

type Operator = ";" | ";;" | "&&" | "||" | "|" | "(" | ")";

type Token =
  | { readonly type: "word"; readonly word: Word; readonly raw: string }
  | { readonly type: "op"; readonly op: Operator }
  | { readonly type: "redirect"; readonly fd: number; readonly op: Redirection["op"] };

const OPERATOR_CHARS = new Set([";", "&", "|", "<", ">", "\n", "(", ")"]);
/** Words that end a compound list when they come where a command would. */
const CLOSERS = new Set(["then", "else", "elif", "fi", "do", "done", "esac", "}"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPECIAL_PARAMETERS = new Set(["?", "#", "@", "*", "$", "!", "-"]);

/** Splits a script into words, operators and redirection operators. */
function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === " " || c === "\t") {
      i++;
    } else if (c === "\\" && script[i + 1] === "\n") {
      i += 2;
    } else if (c === "#") {
      while (i < script.length && script[i] !== "\n") i++;
    } else if (c === "\n" || c === ";") {
      const double = c === ";" && script[i + 1] === ";";
      tokens.push({ type: "op", op: double ? ";;" : ";" });
      i += double ? 2 : 1;
    } else if (c === "&" || c === "|") {
      if (script[i + 1] === c) {
        tokens.push({ type: "op", op: c === "&" ? "&&" : "||" });
        i += 2;
      } else if (c === "|") {
        tokens.push({ type: "op", op: "|" });
        i++;
      } else {
        throw new ShellSyntaxError("background jobs (&) are not supported");
      }
    } else if (c === "(" || c === ")") {
      tokens.push({ type: "op", op: c });
      i++;
    } else {
      const redirect = /^(\d?)(>>|>&|<&|>|<)/.exec(script.slice(i));
      if (redirect) {
        const op = redirect[2] as Redirection["op"];
        if (op === "<" && script[i + redirect[0].length] === "<")
          throw new ShellSyntaxError("here-documents are not supported");
        const fd = redirect[1] !== "" ? Number(redirect[1]) : op.startsWith(">") ? 1 : 0;
        tokens.push({ type: "redirect", fd, op });
        i += redirect[0].length;
      } else {
        const start = i;
        const [word, end] = readWord(script, i);
        tokens.push({ type: "word", word, raw: script.slice(start, end) });
        i = end;
      }
    }
  }
  return tokens;
}

/** The index after the `)` closing a `$(` whose content starts at `start` (quotes and nesting respected). */
function closingParen(script: string, start: number): number {
  let depth = 0;
  for (let i = start; i < script.length; i++) {
    const c = script[i]!;
    if (c === "\\") i++;
    else if (c === "'") {
      i = script.indexOf("'", i + 1);
      if (i < 0) break;
    } else if (c === '"') {
      for (i++; i < script.length && script[i] !== '"'; i++) if (script[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) return i + 1;
      depth--;
    }
  }
  throw new ShellSyntaxError('syntax error: unterminated "$("');
}

/** Appends literal text to `parts`, merging with a preceding literal of the same quoting. */
function appendLiteral(parts: WordPart[], text: string, quoted: boolean): void {
  const last = parts[parts.length - 1];
  if (last?.kind === "literal" && last.quoted === quoted)
    parts[parts.length - 1] = { kind: "literal", text: last.text + text, quoted };
  else parts.push({ kind: "literal", text, quoted });
}

/** `${…}`'s inside (`NAME`, `#NAME`, `NAME:-word`, …) as a parameter part. */
function braceParameter(inside: string, quoted: boolean): WordPart {
  const valid = (name: string): boolean =>
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || SPECIAL_PARAMETERS.has(name) || /^\d+$/.test(name);
  if (inside.startsWith("#") && inside.length > 1 && valid(inside.slice(1)))
    return { kind: "parameter", name: inside.slice(1), quoted, operator: "length" };
  const match = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[?#@*$!-])(:?[-+=])?([\s\S]*)$/.exec(inside);
  if (!match || !valid(match[1]!) || (match[2] === undefined && match[3] !== ""))
    throw new ShellSyntaxError("syntax error: bad substitution");
  if (match[2] === undefined) return { kind: "parameter", name: match[1]!, quoted };
  const operand = readWord(match[3]!, 0, true)[0];
  return {
    kind: "parameter",
    name: match[1]!,
    quoted,
    operator: match[2] as ParameterOperator,
    operand,
  };
}

/**
 * Reads what follows a `$` at `i` into `parts`: `${…}`, `$(…)`, `$((…))`, `$NAME`, `$?`…; a
 * `$` before anything else is literal. Returns the index after it.
 */
function readDollar(script: string, i: number, quoted: boolean, parts: WordPart[]): number {
  const next = script[i + 1] ?? "";
  if (next === "{") {
    const close = script.indexOf("}", i + 2);
    if (close < 0) throw new ShellSyntaxError("syntax error: bad substitution");
    parts.push(braceParameter(script.slice(i + 2, close), quoted));
    return close + 1;
  }
  if (next === "(" && script[i + 2] === "(") {
    const end = closingParen(script, i + 3);
    if (script[end] !== ")") throw new ShellSyntaxError('syntax error: unterminated "$(("');
    const expression = readWord(script.slice(i + 3, end - 1), 0, true)[0];
    parts.push({ kind: "arithmetic", expression, quoted });
    return end + 1;
  }
  if (next === "(") {
    const end = closingParen(script, i + 2);
    parts.push({ kind: "command", script: parseScript(script.slice(i + 2, end - 1)), quoted });
    return end;
  }
  if (SPECIAL_PARAMETERS.has(next) || /\d/.test(next)) {
    parts.push({ kind: "parameter", name: next, quoted });
    return i + 2;
  }
  const name = NAME.exec(script.slice(i + 1))?.[0];
  if (name) {
    parts.push({ kind: "parameter", name, quoted });
    return i + 1 + name.length;
  }
  appendLiteral(parts, "$", quoted);
  return i + 1;
}

/** A backquoted command substitution at `i`: the part, and the index after the closing backquote. */
function readBackquote(script: string, i: number, quoted: boolean, parts: WordPart[]): number {
  let inner = "";
  let j = i + 1;
  for (; j < script.length && script[j] !== "`"; j++) {
    if (script[j] === "\\" && "$`\\".includes(script[j + 1] ?? "")) j++;
    inner += script[j];
  }
  if (j >= script.length) throw new ShellSyntaxError("syntax error: unterminated quoted string");
  parts.push({ kind: "command", script: parseScript(inner), quoted });
  return j + 1;
}

/**
 * Reads one word starting at `start`; returns it and the index after it. `whole`: the text is
 * one word as inside double quotes without the quotes (the contents of `$((…))` and of a
 * `${NAME:-word}` operand): blanks and operators are kept, expansions still happen.
 */
function readWord(script: string, start: number, whole = false): [Word, number] {
  const parts: WordPart[] = [];
  let i = start;
  while (i < script.length) {
    const c = script[i]!;
    if (!whole && (c === " " || c === "\t" || OPERATOR_CHARS.has(c))) break;
    if (c === "`") i = readBackquote(script, i, whole, parts);
    else if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new ShellSyntaxError("syntax error: unterminated quoted string");
      appendLiteral(parts, script.slice(i + 1, close), true);
      i = close + 1;
    } else if (c === '"') {
      i = readDoubleQuoted(script, i + 1, parts);
    } else if (c === "\\") {
      if (i + 1 < script.length) appendLiteral(parts, script[i + 1]!, true);
      i += 2;
    } else if (c === "$") {
      i = readDollar(script, i, whole, parts);
    } else {
      appendLiteral(parts, c, whole);
      i++;
    }
  }
  return [parts, i];
}

/** The inside of `"…"` from `i` (after the opening quote) into `parts`; the index after the closing quote. */
function readDoubleQuoted(script: string, start: number, parts: WordPart[]): number {
  const before = parts.length;
  let i = start;
  while (i < script.length) {
    const d = script[i]!;
    if (d === '"') {
      // An empty "" still makes a (quoted, empty) field.
      if (parts.length === before) appendLiteral(parts, "", true);
      return i + 1;
    }
    if (d === "\\" && i + 1 < script.length && '$`"\\\n'.includes(script[i + 1]!)) {
      if (script[i + 1] !== "\n") appendLiteral(parts, script[i + 1]!, true);
      i += 2;
    } else if (d === "$") i = readDollar(script, i, true, parts);
    else if (d === "`") i = readBackquote(script, i, true, parts);
    else {
      appendLiteral(parts, d, true);
      i++;
    }
  }
  throw new ShellSyntaxError("syntax error: unterminated quoted string");
}

/** The text of a word with no expansions and no quotes, for keywords and assignments. */
function plainText(word: Word): string | undefined {
  if (word.length !== 1) return undefined;
  const part = word[0]!;
  return part.kind === "literal" && !part.quoted ? part.text : undefined;
}

/** Parses a script; throws {@link ShellSyntaxError} for anything outside the supported subset. */
export function parseScript(script: string): Script {
  const parser = new Parser(tokenize(script));
  const lists = parser.list();
  parser.expectEnd();
  return lists;
}

/** A recursive-descent parser over the tokens of one script (XCU 2.10.2's grammar, in part). */
class Parser {
  #pos = 0;
  readonly #tokens: readonly Token[];

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  #peek(): Token | undefined {
    return this.#tokens[this.#pos];
  }

  #isOp(op: Operator): boolean {
    const t = this.#peek();
    return t?.type === "op" && t.op === op;
  }

  /** Whether the next token is the reserved word `word` (unquoted, where a command would start). */
  #isWord(word: string): boolean {
    const t = this.#peek();
    return t?.type === "word" && plainText(t.word) === word;
  }

  #skipNewlines(): void {
    while (this.#isOp(";")) this.#pos++;
  }

  #unexpected(): ShellSyntaxError {
    const t = this.#peek();
    const text = !t ? "end of file" : t.type === "word" ? t.raw : t.op;
    return new ShellSyntaxError(`syntax error: unexpected ${t ? `"${text}"` : text}`);
  }

  #expectWord(word: string): void {
    if (!this.#isWord(word)) throw this.#unexpected();
    this.#pos++;
  }

  expectEnd(): void {
    if (this.#pos < this.#tokens.length) throw this.#unexpected();
  }

  /** And-or lists separated by `;` or newlines, up to a closing word, `)`, `;;` or the end. */
  list(): Script {
    const lists: AndOrList[] = [];
    this.#skipNewlines();
    for (;;) {
      const t = this.#peek();
      if (t === undefined || (t.type === "op" && (t.op === ")" || t.op === ";;"))) break;
      if (t.type === "word" && CLOSERS.has(plainText(t.word) ?? "")) break;
      lists.push(this.#andOr());
      if (this.#peek() !== undefined && !this.#isOp(";") && !this.#isOp(";;") && !this.#isOp(")"))
        throw this.#unexpected();
      this.#skipNewlines();
    }
    return lists;
  }

  /** A non-empty list (the body of a compound command). */
  #body(): Script {
    const body = this.list();
    if (body.length === 0) throw this.#unexpected();
    return body;
  }

  #andOr(): AndOrList {
    const first = this.#pipeline();
    const rest: { op: "&&" | "||"; pipeline: Pipeline }[] = [];
    for (;;) {
      const t = this.#peek();
      if (t?.type !== "op" || (t.op !== "&&" && t.op !== "||")) break;
      this.#pos++;
      this.#skipNewlines();
      rest.push({ op: t.op, pipeline: this.#pipeline() });
    }
    return { first, rest };
  }

  #pipeline(): Pipeline {
    const negated = this.#isWord("!");
    if (negated) this.#pos++;
    const commands = [this.#command()];
    while (this.#isOp("|")) {
      this.#pos++;
      this.#skipNewlines();
      commands.push(this.#command());
    }
    return { negated, commands };
  }

  #command(): ShellCommand {
    const t = this.#peek();
    const keyword = t?.type === "word" ? plainText(t.word) : undefined;
    if (t?.type === "op" && t.op === "(") {
      this.#pos++;
      const body = this.#body();
      if (!this.#isOp(")")) throw this.#unexpected();
      this.#pos++;
      return { kind: "group", subshell: true, body, redirections: this.#redirections() };
    }
    switch (keyword) {
      case "if":
        return this.#if();
      case "for":
        return this.#for();
      case "while":
      case "until": {
        this.#pos++;
        const condition = this.#body();
        this.#expectWord("do");
        const body = this.#body();
        this.#expectWord("done");
        return {
          kind: "while",
          until: keyword === "until",
          condition,
          body,
          redirections: this.#redirections(),
        };
      }
      case "case":
        return this.#case();
      case "{": {
        this.#pos++;
        const body = this.#body();
        this.#expectWord("}");
        return { kind: "group", subshell: false, body, redirections: this.#redirections() };
      }
      case "function":
      case "[[":
        throw new ShellSyntaxError(`"${keyword}" is not supported`);
      default:
        return this.#simple();
    }
  }

  #if(): CompoundCommand {
    const clauses: { condition: Script; body: Script }[] = [];
    let otherwise: Script | undefined;
    this.#pos++;
    for (;;) {
      const condition = this.#body();
      this.#expectWord("then");
      clauses.push({ condition, body: this.#body() });
      if (this.#isWord("elif")) {
        this.#pos++;
        continue;
      }
      if (this.#isWord("else")) {
        this.#pos++;
        otherwise = this.#body();
      }
      this.#expectWord("fi");
      return { kind: "if", clauses, otherwise, redirections: this.#redirections() };
    }
  }

  #for(): CompoundCommand {
    this.#pos++;
    const t = this.#peek();
    const name = t?.type === "word" ? plainText(t.word) : undefined;
    if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw this.#unexpected();
    this.#pos++;
    let words: Word[] | undefined;
    this.#skipNewlines();
    if (this.#isWord("in")) {
      this.#pos++;
      words = [];
      for (let w = this.#peek(); w?.type === "word"; w = this.#peek()) {
        words.push(w.word);
        this.#pos++;
      }
    }
    this.#skipNewlines();
    this.#expectWord("do");
    const body = this.#body();
    this.#expectWord("done");
    return { kind: "for", name, words, body, redirections: this.#redirections() };
  }

  #case(): CompoundCommand {
    this.#pos++;
    const subject = this.#peek();
    if (subject?.type !== "word") throw this.#unexpected();
    this.#pos++;
    this.#skipNewlines();
    this.#expectWord("in");
    this.#skipNewlines();
    const items: { patterns: Word[]; body: Script }[] = [];
    while (!this.#isWord("esac")) {
      if (this.#isOp("(")) this.#pos++;
      const patterns: Word[] = [];
      for (;;) {
        const p = this.#peek();
        if (p?.type !== "word") throw this.#unexpected();
        patterns.push(p.word);
        this.#pos++;
        if (!this.#isOp("|")) break;
        this.#pos++;
      }
      if (!this.#isOp(")")) throw this.#unexpected();
      this.#pos++;
      const body = this.list();
      items.push({ patterns, body });
      if (this.#isOp(";;")) this.#pos++;
      else if (!this.#isWord("esac")) throw this.#unexpected();
      this.#skipNewlines();
    }
    this.#pos++;
    return { kind: "case", subject: subject.word, items, redirections: this.#redirections() };
  }

  /** Redirections after a compound command. */
  #redirections(): Redirection[] {
    const redirections: Redirection[] = [];
    for (let t = this.#peek(); t?.type === "redirect"; t = this.#peek()) {
      this.#pos++;
      const target = this.#peek();
      if (target?.type !== "word") throw this.#unexpected();
      this.#pos++;
      redirections.push({ fd: t.fd, op: t.op, target: target.word });
    }
    return redirections;
  }

  #simple(): SimpleCommand {
    const assignments: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirections: Redirection[] = [];
    for (;;) {
      const t = this.#peek();
      if (t?.type === "redirect") {
        this.#pos++;
        const target = this.#peek();
        if (target?.type !== "word") throw this.#unexpected();
        this.#pos++;
        redirections.push({ fd: t.fd, op: t.op, target: target.word });
      } else if (t?.type === "word") {
        const first = t.word[0];
        const text = first?.kind === "literal" && !first.quoted ? first.text : "";
        const assignment = words.length === 0 ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text) : null;
        this.#pos++;
        if (assignment) {
          const rest = text.slice(assignment[0].length);
          const value: WordPart[] = [
            ...(rest !== "" ? [{ kind: "literal" as const, text: rest, quoted: false }] : []),
            ...t.word.slice(1),
          ];
          assignments.push({ name: assignment[1]!, value });
        } else {
          words.push(t.word);
        }
      } else if (t?.type === "op" && t.op === "(" && words.length === 1) {
        throw new ShellSyntaxError("functions are not supported");
      } else {
        break;
      }
    }
    if (assignments.length === 0 && words.length === 0 && redirections.length === 0)
      throw this.#unexpected();
    return { kind: "simple", assignments, words, redirections };
  }
}
