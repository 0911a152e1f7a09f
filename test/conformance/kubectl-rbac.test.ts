import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import {
  failed,
  hasKubectl,
  succeeded,
  tableRows,
  useKubectlSession,
  warnIfNoKubectl,
} from "../support/kubectl.js";

/**
 * kubectl against `kubekit serve --authorization RBAC` (HTTPS; the kubeconfig's user is in
 * system:masters): `auth whoami --token=$(kubectl create token default)`, `auth can-i --as`
 * before and after a RoleBinding, and kube's 403 for a user without a binding. (Anonymous
 * requests are pinned over HTTPS in test/integration/apiserver/auth.test.ts: kubectl prompts
 * for a password when its user has no credential.)
 */

warnIfNoKubectl("the kubectl RBAC conformance tests");
describe.skipIf(!hasKubectl)("kubectl against kubekit serve --authorization RBAC", () => {
  const session = useKubectlSession(["--authorization", "RBAC", "--no-cluster"]);
  let noUserKubeconfig: string;

  beforeAll(async () => {
    const doc = parse(await readFile(session().kubeconfigPath, "utf8")) as {
      users: { name: string; user: Record<string, unknown> }[];
    };
    noUserKubeconfig = join(session().dir, "no-user.kubeconfig");
    const stripped = { ...doc, users: doc.users.map((u) => ({ name: u.name, user: {} })) };
    await writeFile(noUserKubeconfig, stringify(stripped), { mode: 0o600 });
  });

  it("auth whoami --token=$(kubectl create token default) prints the service account", async () => {
    const token = succeeded(await session().run(["create", "token", "default"])).trim();
    expect(token.split(".")).toHaveLength(3);
    const rows = tableRows(
      succeeded(
        await session().run([
          "--kubeconfig",
          noUserKubeconfig,
          "auth",
          "whoami",
          `--token=${token}`,
        ]),
      ),
    );
    expect(rows[1]).toEqual(["Username", "system:serviceaccount:default:default"]);
    expect(rows.find((r) => r[0] === "Groups")?.[1]).toBe(
      "[system:serviceaccounts system:serviceaccounts:default system:authenticated]",
    );
  });

  it("auth can-i list pods --as=jane: no, then yes after a RoleBinding", async () => {
    const before = await session().run(["auth", "can-i", "list", "pods", "--as=jane"]);
    expect(before.stdout).toBe("no\n");
    expect(before.code).toBe(1);
    succeeded(
      await session().run([
        "create",
        "rolebinding",
        "jane-view",
        "--clusterrole=view",
        "--user=jane",
        "-n",
        "default",
      ]),
    );
    expect(succeeded(await session().run(["auth", "can-i", "list", "pods", "--as=jane"]))).toBe(
      "yes\n",
    );
    expect(
      (await session().run(["auth", "can-i", "list", "pods", "--as=jane", "-n", "kube-system"]))
        .stdout,
    ).toBe("no\n");
  });

  it("a user without a binding gets kube's 403", async () => {
    const stderr = failed(await session().run(["get", "secrets", "--as=bob", "-n", "default"]));
    expect(stderr).toContain(
      'Error from server (Forbidden): secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
  });
});
