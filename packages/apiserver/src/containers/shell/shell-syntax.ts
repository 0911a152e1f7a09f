/**
 * The syntax of the simulated `sh`: a small subset of the POSIX shell command language
 * (POSIX.1-2017, XCU chapter 2). Supported: simple commands with `NAME=value` prefixes,
 * pipelines (`|`, leading `!`), and-or lists (`&&`, `||`), sequences (`;`, newlines),
 * redirections (`>`, `>>`, `<`, `N>`, `N>>`, `N>&M`), single and double quotes, backslash
 * escapes, `#` comments and parameter expansion (`$NAME`, `${NAME}`, `$?`, `$#`, `$@`, `$*`,
 * `$$`, `$0`–`$9`). Anything else — compound commands (`if`, `for`, `while`, `case`, `{ }`,
 * `( )`), functions, background jobs (`&`), command substitution, arithmetic, here-documents
 * and globbing — is refused with a {@link ShellSyntaxError} rather than misread.
 */

/** One piece of a word: literal text, or a parameter to expand; `quoted` parts are not field-split. */
export type WordPart =
  | { readonly kind: "literal"; readonly text: string; readonly quoted: boolean }
  | { readonly kind: "parameter"; readonly name: string; readonly quoted: boolean };

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
  readonly assignments: readonly { readonly name: string; readonly value: Word }[];
  readonly words: readonly Word[];
  readonly redirections: readonly Redirection[];
}

/** Commands joined by `|`; `negated` for a leading `!`. */
export interface Pipeline {
  readonly negated: boolean;
  readonly commands: readonly SimpleCommand[];
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

type Token =
  | { readonly type: "word"; readonly word: Word; readonly raw: string }
  | { readonly type: "op"; readonly op: ";" | "&&" | "||" | "|" | "!" }
  | { readonly type: "redirect"; readonly fd: number; readonly op: Redirection["op"] };

const OPERATOR_CHARS = new Set([";", "&", "|", "<", ">", "\n", "(", ")"]);
const RESERVED = new Set([
  "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
  "function", "{", "}", "[[", "]]",
]); // prettier-ignore
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
      if (script[i + 1] === ";" && c === ";")
        throw new ShellSyntaxError('syntax error: unexpected ";;"');
      tokens.push({ type: "op", op: ";" });
      i++;
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
      throw new ShellSyntaxError(`syntax error: unexpected "${c}" (subshells are not supported)`);
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

/** Reads one word starting at `start`; returns it and the index after it. */
function readWord(script: string, start: number): [Word, number] {
  const parts: WordPart[] = [];
  let i = start;
  const literal = (text: string, quoted: boolean): void => {
    const last = parts[parts.length - 1];
    if (last?.kind === "literal" && last.quoted === quoted)
      parts[parts.length - 1] = { kind: "literal", text: last.text + text, quoted };
    else parts.push({ kind: "literal", text, quoted });
  };
  const parameter = (quoted: boolean): void => {
    // At `$`: ${NAME}, $NAME, $?, $0..$9; a `$` before anything else is literal.
    const next = script[i + 1] ?? "";
    if (next === "{") {
      const close = script.indexOf("}", i + 2);
      const name = close < 0 ? "" : script.slice(i + 2, close);
      const valid =
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || SPECIAL_PARAMETERS.has(name) || /^\d+$/.test(name);
      if (!valid) throw new ShellSyntaxError("syntax error: bad substitution");
      parts.push({ kind: "parameter", name, quoted });
      i = close + 1;
    } else if (next === "(") {
      throw new ShellSyntaxError("command substitution and arithmetic are not supported");
    } else if (SPECIAL_PARAMETERS.has(next) || /\d/.test(next)) {
      parts.push({ kind: "parameter", name: next, quoted });
      i += 2;
    } else {
      const name = NAME.exec(script.slice(i + 1))?.[0];
      if (name) {
        parts.push({ kind: "parameter", name, quoted });
        i += 1 + name.length;
      } else {
        literal("$", quoted);
        i++;
      }
    }
  };
  while (i < script.length) {
    const c = script[i]!;
    if (c === " " || c === "\t" || OPERATOR_CHARS.has(c)) break;
    if (c === "`") throw new ShellSyntaxError("command substitution is not supported");
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new ShellSyntaxError("syntax error: unterminated quoted string");
      literal(script.slice(i + 1, close), true);
      i = close + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < script.length) {
        const d = script[i]!;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === "\\" && i + 1 < script.length && '$`"\\\n'.includes(script[i + 1]!)) {
          if (script[i + 1] !== "\n") literal(script[i + 1]!, true);
          i += 2;
        } else if (d === "$") {
          parameter(true);
        } else if (d === "`") {
          throw new ShellSyntaxError("command substitution is not supported");
        } else {
          literal(d, true);
          i++;
        }
      }
      if (!closed) throw new ShellSyntaxError("syntax error: unterminated quoted string");
      // An empty "" still makes a (quoted, empty) field.
      if (parts.length === 0) literal("", true);
    } else if (c === "\\") {
      if (i + 1 < script.length) literal(script[i + 1]!, true);
      i += 2;
    } else if (c === "$") {
      parameter(false);
    } else {
      literal(c, false);
      i++;
    }
  }
  return [parts, i];
}

/** The text of a word with no expansions and no quotes, for keywords and assignments. */
function plainText(word: Word): string | undefined {
  if (word.length !== 1) return undefined;
  const part = word[0]!;
  return part.kind === "literal" && !part.quoted ? part.text : undefined;
}

/** Parses a script; throws {@link ShellSyntaxError} for anything outside the supported subset. */
export function parseScript(script: string): Script {
  const tokens = tokenize(script);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (op: string): boolean => {
    const t = peek();
    return t?.type === "op" && t.op === op;
  };
  const skipNewlines = (): void => {
    while (isOp(";")) pos++;
  };
  const unexpected = (): ShellSyntaxError => {
    const t = peek();
    const text = !t ? "end of file" : t.type === "word" ? t.raw : t.type === "op" ? t.op : t.op;
    return new ShellSyntaxError(`syntax error: unexpected ${t ? `"${text}"` : text}`);
  };

  const command = (): SimpleCommand => {
    const assignments: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirections: Redirection[] = [];
    for (;;) {
      const t = peek();
      if (t?.type === "redirect") {
        pos++;
        const target = peek();
        if (target?.type !== "word") throw unexpected();
        pos++;
        redirections.push({ fd: t.fd, op: t.op, target: target.word });
      } else if (t?.type === "word") {
        const text = t.word[0]?.kind === "literal" && !t.word[0].quoted ? t.word[0].text : "";
        const assignment = words.length === 0 ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text) : null;
        if (words.length === 0 && RESERVED.has(plainText(t.word) ?? "")) {
          throw new ShellSyntaxError(`"${t.raw}" (compound commands) is not supported`);
        }
        pos++;
        if (assignment) {
          const first = t.word[0] as WordPart & { kind: "literal" };
          const rest = first.text.slice(assignment[0].length);
          const value: WordPart[] = [
            ...(rest !== "" ? [{ kind: "literal" as const, text: rest, quoted: false }] : []),
            ...t.word.slice(1),
          ];
          assignments.push({ name: assignment[1]!, value });
        } else {
          words.push(t.word);
        }
      } else {
        break;
      }
    }
    if (assignments.length === 0 && words.length === 0 && redirections.length === 0)
      throw unexpected();
    return { assignments, words, redirections };
  };

  const pipeline = (): Pipeline => {
    let negated = false;
    const t = peek();
    if (t?.type === "word" && plainText(t.word) === "!") {
      negated = true;
      pos++;
    }
    const commands = [command()];
    while (isOp("|")) {
      pos++;
      skipNewlines();
      commands.push(command());
    }
    return { negated, commands };
  };

  const andOr = (): AndOrList => {
    const first = pipeline();
    const rest: { op: "&&" | "||"; pipeline: Pipeline }[] = [];
    for (;;) {
      const t = peek();
      if (t?.type !== "op" || (t.op !== "&&" && t.op !== "||")) break;
      pos++;
      skipNewlines();
      rest.push({ op: t.op, pipeline: pipeline() });
    }
    return { first, rest };
  };

  const lists: AndOrList[] = [];
  skipNewlines();
  while (pos < tokens.length) {
    lists.push(andOr());
    if (pos < tokens.length && !isOp(";")) throw unexpected();
    skipNewlines();
  }
  return lists;
}
