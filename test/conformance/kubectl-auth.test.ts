import { describe, expect, it } from "vitest";
import {
  hasKubectl,
  tableRows,
  warnIfNoKubectl,
  succeeded,
  useKubectlSession,
} from "../support/kubectl.js";

/**
 * `kubectl auth can-i` and `kubectl auth whoami` against `kubekit serve`: the server has no
 * RBAC, so it answers the access reviews as kube-apiserver under
 * `--authorization-mode=AlwaysAllow` does, and SelfSubjectReview with the requester (anonymous
 * here: `kubekit serve` without --tls has no authentication).
 */

warnIfNoKubectl("the kubectl auth conformance tests");
describe.skipIf(!hasKubectl)("kubectl auth against kubekit serve", () => {
  const session = useKubectlSession();

  it("can-i create pods says yes and exits 0", async () => {
    expect(succeeded(await session().run(["auth", "can-i", "create", "pods"]))).toBe("yes\n");
  });

  it("can-i answers yes for any verb, resource, namespace and non-resource URL", async () => {
    expect(
      succeeded(
        await session().run(["auth", "can-i", "delete", "deployments.apps", "-n", "kube-system"]),
      ),
    ).toBe("yes\n");
    expect(succeeded(await session().run(["auth", "can-i", "*", "*", "--all-namespaces"]))).toBe(
      "yes\n",
    );
    expect(succeeded(await session().run(["auth", "can-i", "get", "/logs"]))).toBe("yes\n");
    // --quiet answers with the exit code alone.
    const quiet = await session().run(["auth", "can-i", "list", "secrets", "--quiet"]);
    expect(succeeded(quiet)).toBe("");
  });

  it("can-i --list lists every verb on every resource and non-resource URL", async () => {
    const rows = tableRows(succeeded(await session().run(["auth", "can-i", "--list"])));
    expect(rows).toEqual([
      ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"],
      ["*.*", "[]", "[]", "[*]"],
      ["[*]", "[]", "[*]"],
    ]);
  });

  it("whoami prints the requester", async () => {
    const rows = tableRows(succeeded(await session().run(["auth", "whoami"])));
    expect(rows).toEqual([
      ["ATTRIBUTE", "VALUE"],
      ["Username", "system:anonymous"],
      ["Groups", "[system:unauthenticated]"],
    ]);
    const json = JSON.parse(succeeded(await session().run(["auth", "whoami", "-o", "json"]))) as {
      kind: string;
      status: { userInfo: { username: string } };
    };
    expect(json.kind).toBe("SelfSubjectReview");
    expect(json.status.userInfo.username).toBe("system:anonymous");
  });

  // --validate=false: kubectl validates a kind without a PATCH operation (create-only) against
  // /openapi/v2, which kubekit does not serve.
  it("kubectl create -f of a SubjectAccessReview prints the allowed review", async () => {
    const path = await session().writeManifest(
      "sar.yaml",
      `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: alice
  resourceAttributes: {namespace: default, verb: get, resource: secrets}
`,
    );
    const review = JSON.parse(
      succeeded(await session().run(["create", "--validate=false", "-f", path, "-o", "json"])),
    ) as {
      status: { allowed: boolean };
    };
    expect(review.status.allowed).toBe(true);
  });
});
