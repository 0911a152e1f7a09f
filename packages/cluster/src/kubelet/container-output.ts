import type { Container } from "kubernetes-types/core/v1.js";

/** Splits a shell word list the way `sh` would for simple cases: quotes grouped, backslashes kept literal. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | undefined;
  let inWord = false;
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** What an `echo` with `args` prints (`-n` and `-e` flags dropped). */
function echoOutput(args: readonly string[]): string {
  let rest = [...args];
  while (rest[0] === "-n" || rest[0] === "-e" || rest[0] === "-ne" || rest[0] === "-en") {
    rest = rest.slice(1);
  }
  return rest.join(" ");
}

/** The program name of a path (`/bin/echo` → `echo`). */
function programOf(word: string | undefined): string {
  return (word ?? "").split("/").pop() ?? "";
}

/** The lines the `echo`/`printf` commands of a shell script print, in order. */
function scriptOutput(script: string): string[] {
  const lines: string[] = [];
  for (const statement of script.split(/;|&&|\|\||\n/)) {
    const words = shellWords(statement.trim());
    const program = programOf(words[0]);
    if (program === "echo") lines.push(echoOutput(words.slice(1)));
    else if (program === "printf" && words[1] !== undefined) {
      lines.push(...words[1].replace(/\\n$/, "").split("\\n"));
    }
  }
  return lines;
}

/**
 * What a simulated container prints when it starts, for `kubectl logs`: what its
 * `command`/`args` would print when they are an `echo` (`["echo", "hello"]`) or a shell
 * script of `echo`/`printf` statements (`["sh", "-c", "echo hello; sleep 3600"]`); otherwise
 * one line naming the container and its image. The caller prefers the pod's `log` simulation
 * annotation over this.
 */
export function simulatedOutput(container: Container): string[] {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  const program = programOf(argv[0]);
  if (program === "echo") return [echoOutput(argv.slice(1))];
  if (["sh", "bash", "ash", "dash"].includes(program)) {
    const scriptAt = argv.findIndex((word, i) => i > 0 && /^-\w*c\w*$/.test(word));
    const script = scriptAt > 0 ? argv[scriptAt + 1] : undefined;
    if (script !== undefined) {
      const lines = scriptOutput(script);
      if (lines.length > 0) return lines;
    }
  }
  return [`kubekit: container ${container.name} (image ${container.image ?? ""}) started`];
}
