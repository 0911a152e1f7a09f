import { describe, expect, it } from "vitest";
import {
  parseScript,
  ShellSyntaxError,
} from "../../../../packages/apiserver/src/containers/shell/shell-syntax.js";
import { newContainer, run, sh } from "./run-shell.js";

describe("the simulated sh: syntax", () => {
  it("parses sequences, and-or lists, pipelines, redirections and assignments", () => {
    const script = parseScript("A=1 echo x > f 2>&1 | cat && true || false; ! true\nexit");
    expect(script).toHaveLength(3);
    const [first] = script;
    expect(first!.rest.map((r) => r.op)).toEqual(["&&", "||"]);
    expect(first!.first.commands).toHaveLength(2);
    const echo = first!.first.commands[0]!;
    if (echo.kind !== "simple") throw new Error("not a simple command");
    expect(echo.assignments.map((a) => a.name)).toEqual(["A"]);
    expect(echo.redirections.map((r) => [r.fd, r.op])).toEqual([
      [1, ">"],
      [2, ">&"],
    ]);
    expect(script[1]!.first.negated).toBe(true);
  });

  it.each([
    ["f() { echo; }", /functions are not supported/],
    ["sleep 1 &", /background jobs/],
    ["echo 'open", /unterminated quoted string/],
    ['echo "open', /unterminated quoted string/],
    ["echo $(date", /unterminated/],
    ["cat <<EOF", /here-documents/],
    ["echo ${A%x}", /bad substitution/],
    ["| cat", /unexpected "\|"/],
    ["echo &&", /unexpected end of file/],
    ["if true; then echo; done", /unexpected "done"/],
    ["for 1 in a; do :; done", /unexpected "1"/],
    ["case x in a) echo", /unexpected end of file/],
  ])("refuses %j", (text, message) => {
    expect(() => parseScript(text)).toThrow(ShellSyntaxError);
    expect(() => parseScript(text)).toThrow(message);
  });

  it("prints a syntax error as sh does, with status 2, running nothing", async () => {
    const r = await sh("echo before; if true; then echo; done");
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toBe('sh: syntax error: unexpected "done"\n');
  });
});

describe("the simulated sh: execution", () => {
  it("runs ; && || with exit statuses, and exit N", async () => {
    expect(await sh("echo a; false && echo no; false || echo b; true && echo c")).toMatchObject({
      status: 0,
      stdout: "a\nb\nc\n",
    });
    expect((await sh("echo x; exit 3; echo never")).status).toBe(3);
    expect((await sh("exit 300")).status).toBe(44);
    expect((await sh("false")).status).toBe(1);
    expect((await sh("false; echo $?")).stdout).toBe("1\n");
    expect((await sh("! true")).status).toBe(1);
  });

  it("answers an unknown command with sh: X: not found and 127", async () => {
    const r = await sh("nosuch arg; echo $?");
    expect(r.stderr).toBe("sh: nosuch: not found\n");
    expect(r.stdout).toBe("127\n");
  });

  it("expands parameters: quoting, field splitting, positional and special parameters", async () => {
    const env = { PATH: "/bin", WORDS: "a  b c", EMPTY: "" };
    expect((await sh('echo "$WORDS" $WORDS ${WORDS}x', { env })).stdout).toBe(
      "a  b c a b c a b cx\n",
    );
    expect((await sh("echo [$EMPTY] [\"$EMPTY\"] '$WORDS' \\$WORDS", { env })).stdout).toBe(
      "[] [] $WORDS $WORDS\n",
    );
    expect((await run(["sh", "-c", 'echo $0 $# "$@" $2', "name", "one", "two words"])).stdout).toBe(
      "name 2 one two words two words\n",
    );
    expect((await sh("X=1; Y=$X$X; echo $Y")).stdout).toBe("11\n");
  });

  it("passes NAME=value prefixes and exported variables to commands, not plain shell variables", async () => {
    const r = await sh("LOCAL=1; export EXP=2; ONE=3 env; env");
    const [first, second] = r.stdout.split("PATH=/bin\n").filter((s) => s !== "");
    expect(r.stdout).toContain("ONE=3");
    expect(r.stdout).not.toContain("LOCAL=1");
    expect(first).toBeDefined();
    expect(second).not.toContain("ONE=3");
    expect(r.stdout.match(/EXP=2/g)).toHaveLength(2);
  });

  it("pipes between commands, in order, and takes the last command's status", async () => {
    expect(await sh("echo hello | cat | cat")).toMatchObject({ status: 0, stdout: "hello\n" });
    expect((await sh("echo x | false")).status).toBe(1);
    expect((await sh("false | echo y")).stdout).toBe("y\n");
    const big = "x".repeat(300_000);
    expect((await sh("cat | cat", { stdin: big })).stdout).toHaveLength(300_000);
  });

  it("redirects to and from files, appends, duplicates descriptors and discards to /dev/null", async () => {
    const container = newContainer();
    await sh("echo one > /tmp/f; echo two >> /tmp/f; echo err 2>/dev/null >&2", { container });
    expect((await sh("cat < /tmp/f", { container })).stdout).toBe("one\ntwo\n");
    const both = await sh("cat /nonexistent /tmp/f 2>&1", { container });
    expect(both.stdout).toBe(
      "cat: can't open '/nonexistent': No such file or directory\none\ntwo\n",
    );
    expect((await sh("echo to-err >/dev/stderr", { container })).stderr).toBe("to-err\n");
    const missing = await sh("echo x > /no/dir/f; echo $?", { container });
    expect(missing.stderr).toBe("sh: can't create /no/dir/f: No such file or directory\n");
    expect(missing.stdout).toBe("1\n");
  });

  it("changes directory with cd, relative paths follow it", async () => {
    const r = await sh(
      "mkdir -p /tmp/a/b && cd /tmp/a && pwd && cd b && pwd && echo hi > f && cat /tmp/a/b/f; cd /nope",
    );
    expect(r.stdout).toBe("/tmp/a\n/tmp/a/b\nhi\n");
    expect(r.stderr).toBe("sh: cd: can't cd to /nope: No such file or directory\n");
    expect(r.status).toBe(2);
  });

  it("reads commands from stdin when given no -c, and scripts from files", async () => {
    const container = newContainer();
    expect(await run(["sh"], { container, stdin: "echo one\nexit 5\necho never\n" })).toMatchObject(
      {
        status: 5,
        stdout: "one\n",
      },
    );
    container.fs.writeFile("/tmp/s.sh", "echo script $1\n");
    expect((await run(["sh", "/tmp/s.sh", "arg"], { container })).stdout).toBe("script arg\n");
  });

  it("prompts on a terminal", async () => {
    const r = await run(["sh"], { stdin: "cd /tmp\n", tty: true });
    expect(r.stdout).toBe("/ # /tmp # ");
  });

  it("exec replaces the shell with the command", async () => {
    expect(await sh("exec sh -c 'exit 7'; echo never")).toMatchObject({ status: 7, stdout: "" });
  });
});
