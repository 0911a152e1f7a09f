import { rm, writeFile } from "node:fs/promises";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { ConfigError } from "kubekit";
import {
  TOKEN_FILE_REFRESH_MS,
  TokenFileCredentials,
} from "../../../packages/kubekit/src/config/token-file.js";
import { tempTree, type TempTree } from "./fixtures.js";

let tree: TempTree;
let counter = 0;

beforeAll(async () => {
  tree = await tempTree();
});

afterAll(async () => {
  await tree.remove();
});

/** A fresh token file path (not yet written) for each test. */
function freshPath(): string {
  counter += 1;
  return tree.path(`token-${counter}`);
}

async function bearer(
  source: TokenFileCredentials,
  signal?: AbortSignal,
): Promise<string | undefined> {
  return (await source.get(signal)).headers["Authorization"];
}

describe("TokenFileCredentials", () => {
  it("reads and trims the token, and keeps it for a minute", async () => {
    const path = freshPath();
    await writeFile(path, "\n first \n");
    const clock = new FakeClock();
    const source = new TokenFileCredentials({ path, clock });
    expect(source.kind).toBe("tokenFile");
    expect(await bearer(source)).toBe("Bearer first");
    await writeFile(path, "second");
    clock.advance(TOKEN_FILE_REFRESH_MS - 1);
    expect(await bearer(source)).toBe("Bearer first");
    clock.advance(1);
    expect(await bearer(source)).toBe("Bearer second");
  });

  it("re-reads the file right after invalidate() (a 401)", async () => {
    const path = freshPath();
    await writeFile(path, "old");
    const source = new TokenFileCredentials({ path, clock: new FakeClock() });
    expect(await bearer(source)).toBe("Bearer old");
    await writeFile(path, "rotated");
    expect(await bearer(source)).toBe("Bearer old");
    source.invalidate();
    expect(await bearer(source)).toBe("Bearer rotated");
  });

  it("keeps using the last token when a re-read fails", async () => {
    const path = freshPath();
    await writeFile(path, "last");
    const clock = new FakeClock();
    const source = new TokenFileCredentials({ path, clock });
    expect(await bearer(source)).toBe("Bearer last");
    await rm(path);
    clock.advance(TOKEN_FILE_REFRESH_MS);
    expect(await bearer(source)).toBe("Bearer last");
    // Once the file is back, the next get reads it (the failed read was not cached).
    await writeFile(path, "back");
    expect(await bearer(source)).toBe("Bearer back");
  });

  it("uses the fallback token until the file can be read", async () => {
    const path = freshPath();
    const source = new TokenFileCredentials({
      path,
      fallbackToken: "fallback",
      clock: new FakeClock(),
    });
    expect(await bearer(source)).toBe("Bearer fallback");
    await writeFile(path, "from-file");
    expect(await bearer(source)).toBe("Bearer from-file");
  });

  it("fails with a ConfigError naming the file when nothing is known", async () => {
    const path = freshPath();
    const source = new TokenFileCredentials({
      path,
      clock: new FakeClock(),
      location: { file: "/k/config", entry: { kind: "user", name: "u" }, field: "tokenFile" },
    });
    const error = await source.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `/k/config: user "u": tokenFile: file ${path} does not exist`,
    );
    await writeFile(path, "  \n");
    await expect(source.get()).rejects.toThrow(`file ${path} is empty`);
  });

  it("shares one read between concurrent calls", async () => {
    const path = freshPath();
    await writeFile(path, "shared");
    const source = new TokenFileCredentials({ path, clock: new FakeClock() });
    const results = await Promise.all(Array.from({ length: 5 }, () => bearer(source)));
    expect(new Set(results)).toEqual(new Set(["Bearer shared"]));
  });

  it("honours an aborted signal", async () => {
    const path = freshPath();
    await writeFile(path, "t");
    const source = new TokenFileCredentials({ path, clock: new FakeClock() });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(source.get(controller.signal)).rejects.toThrow("stop");
  });

  it("never shows the token in renderings", async () => {
    const path = freshPath();
    await writeFile(path, "secret-file-token");
    const source = new TokenFileCredentials({
      path,
      fallbackToken: "secret-fallback",
      kind: "inCluster",
    });
    await source.get();
    for (const text of [inspect(source, { depth: 5 }), String(source), JSON.stringify(source)]) {
      expect(text).not.toContain("secret-");
      expect(text).toContain(path);
    }
    expect(source.kind).toBe("inCluster");
  });
});
