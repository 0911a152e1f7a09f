import { describe, expect, it } from "vitest";
import { evaluateArithmetic } from "../../../../packages/apiserver/src/containers/shell/shell-arithmetic.js";
import { newContainer, sh } from "./run-shell.js";

describe("the simulated sh: expansions", () => {
  it("substitutes commands with $(…) and backquotes, trailing newlines removed", async () => {
    expect(
      await sh('echo "host=$(hostname)" `echo a b`; x=$(printf "1\\n2\\n\\n"); echo "$x"'),
    ).toMatchObject({
      status: 0,
      stdout: "host=web-0 a b\n1\n2\n",
    });
    // Unquoted, the result is split into fields; $? is the substitution's status.
    expect(
      (await sh('set_words=$(echo "a   b"); echo $set_words; v=$(false); echo $?')).stdout,
    ).toBe("a b\n1\n");
    expect((await sh("echo $(echo $(echo nested))")).stdout).toBe("nested\n");
  });

  it("evaluates $((…)) with variables, precedence, comparisons and assignments", async () => {
    expect(
      (
        await sh(
          "i=4; echo $((i * 2 + 1)) $(( (1+2)*3 )) $((7/2)) $((7%3)) $((i>3 && i<5)) $((-i))",
        )
      ).stdout,
    ).toBe("9 9 3 1 1 -4\n");
    expect(
      (await sh("n=0; : $((n += 5)); echo $n $((0x10)) $((010)) $((n == 5 ? 10 : 20))")).stdout,
    ).toBe("5 16 8 10\n");
    const r = await sh("echo $((1 / 0)); echo after");
    expect(r.stderr).toMatch(/^sh: arithmetic syntax error: division by zero/);
    expect(r.stdout).toBe("after\n");
    expect(() => evaluateArithmetic("1 +", { get: () => undefined, set: () => undefined })).toThrow(
      'arithmetic syntax error: "1 +"',
    );
  });

  it("expands ${NAME:-word}, ${NAME-word}, ${NAME:+word}, ${NAME:=word} and ${#NAME}", async () => {
    const r = await sh(
      'E=; S=set; echo "${U:-d1} ${E:-d2} ${E-d3} ${S:+alt} ${U:+alt}|${#S} ${N:=made} $N"',
    );
    expect(r.stdout).toBe("d1 d2  alt |3 made made\n");
  });
});

describe("the simulated sh: compound commands", () => {
  it("runs if/elif/else and test conditions", async () => {
    const script =
      "for n in 1 2 3; do if [ $n -eq 1 ]; then echo one; elif [ $n = 2 ]; then echo two; else echo many; fi; done";
    expect((await sh(script)).stdout).toBe("one\ntwo\nmany\n");
  });

  it("runs for over words, seq output and positional parameters, with break and continue", async () => {
    expect(
      (await sh("for i in $(seq 5); do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done"))
        .stdout,
    ).toBe("1\n3\n");
    expect((await sh('for a; do echo "[$a]"; done', {})).stdout).toBe("");
    expect((await sh("for x in a b\ndo\n  echo $x\ndone")).stdout).toBe("a\nb\n");
  });

  it("runs while and until loops, reading lines from a pipe", async () => {
    expect((await sh("i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done")).stdout).toBe(
      "0\n1\n2\n",
    );
    expect((await sh("i=3; until [ $i -eq 0 ]; do i=$((i-1)); done; echo $i")).stdout).toBe("0\n");
    expect((await sh("seq 3 | while read n; do echo line $n; done")).stdout).toBe(
      "line 1\nline 2\nline 3\n",
    );
  });

  it("stops a loop when the process is killed, sleeping on the server clock", async () => {
    const container = newContainer();
    const kill = new AbortController();
    const running = sh("while true; do sleep 1; done; echo never", {
      container,
      signal: kill.signal,
    });
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      container.clock.advance(1000);
    }
    kill.abort();
    expect((await running).stdout).toBe("");
  });

  it("matches case patterns with globs and alternatives; groups and subshells", async () => {
    const script =
      'for f in app.log x.txt b; do case $f in *.log|*.out) echo "log $f";; ?.txt) echo txt;; *) echo other;; esac; done';
    expect((await sh(script)).stdout).toBe("log app.log\ntxt\nother\n");
    expect(
      (await sh("x=1; (x=2; echo in $x); echo out $x; { x=3; echo group; } > /dev/null; echo $x"))
        .stdout,
    ).toBe("in 2\nout 1\n3\n");
  });

  it("redirects a loop's output, and reports unsupported constructs with status 2", async () => {
    expect((await sh("for i in 1 2; do echo $i; done > /dev/null; echo done")).stdout).toBe(
      "done\n",
    );
    const r = await sh("f() { echo; }");
    expect(r).toMatchObject({ status: 2, stdout: "", stderr: "sh: functions are not supported\n" });
  });
});
