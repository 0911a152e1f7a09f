import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasKubectl, KUBECTL_TIMEOUT_MS } from "../../support/kubectl.js";
import {
  createCrd,
  eventually,
  header,
  type Json,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";

/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding enforced by the embedded
 * server's admission chain as kube-apiserver 1.32 does
 * (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/`): params from a
 * ConfigMap, Deny/Warn/Audit, messageExpression, variables, matchConditions, failurePolicy with
 * a missing param, namespaceSelector, the type-checking status, and kubectl's view of a denial.
 * Each scenario selects its own namespace (label `scenario`), so the policies never overlap.
 */

const AR = "/apis/admissionregistration.k8s.io/v1";
const POLICIES = `${AR}/validatingadmissionpolicies`;
const BINDINGS = `${AR}/validatingadmissionpolicybindings`;

const DEPLOYMENT_RULE = {
  apiGroups: ["apps"],
  apiVersions: ["v1"],
  resources: ["deployments"],
  operations: ["CREATE", "UPDATE"],
};

function deployment(name: string, replicas: number, labels: Json = {}): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "main", image: "nginx" }] },
      },
    },
  };
}

/** A policy on Deployments in namespaces labelled `scenario: <scenario>`. */
function policyBody(name: string, scenario: string, spec: Json): Json {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [DEPLOYMENT_RULE],
        namespaceSelector: { matchLabels: { scenario } },
      },
      ...spec,
    },
  };
}

function bindingBody(name: string, policyName: string, spec: Json = {}): Json {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: ["Deny"], ...spec },
  };
}

describe("ValidatingAdmissionPolicy", () => {
  const h = useServer();

  async function created(path: string, body: Json): Promise<Json> {
    const res = await h.client.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.json as Json;
  }

  async function scenario(name: string, policies: Json[], bindings: Json[]): Promise<string> {
    await created("/api/v1/namespaces", {
      metadata: { name, labels: { scenario: name } },
    });
    for (const p of policies) await created(POLICIES, p);
    for (const b of bindings) await created(BINDINGS, b);
    return `/apis/apps/v1/namespaces/${name}/deployments`;
  }

  beforeAll(async () => {
    await created("/api/v1/namespaces", { metadata: { name: "params" } });
    await created("/api/v1/namespaces/params/configmaps", {
      metadata: { name: "replica-limit" },
      data: { maxReplicas: "3" },
    });
  });

  it("denies Deployments above a ConfigMap param, with kube's status and message", async () => {
    const path = await scenario(
      "limits",
      [
        policyBody("max-replicas.example.com", "limits", {
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          validations: [
            {
              expression: "object.spec.replicas <= int(params.data.maxReplicas)",
              messageExpression: "'replicas must be no greater than ' + params.data.maxReplicas",
            },
          ],
        }),
      ],
      [
        bindingBody("max-replicas-binding", "max-replicas.example.com", {
          paramRef: { name: "replica-limit", namespace: "params", parameterNotFoundAction: "Deny" },
        }),
      ],
    );
    expect((await h.client.post(path, deployment("small", 2))).status).toBe(201);
    const res = await h.client.post(path, deployment("big", 5));
    const message =
      "ValidatingAdmissionPolicy 'max-replicas.example.com' with binding 'max-replicas-binding' denied request: replicas must be no greater than 3";
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `deployments.apps "big" is forbidden: ${message}`,
      reason: "Invalid",
      details: { name: "big", group: "apps", kind: "deployments", causes: [{ message }] },
      code: 422,
    });
    expect((await h.client.get(`${path}/big`)).status).toBe(404);
    // An update is checked too; the stored object is unchanged.
    const small = (await h.client.get(`${path}/small`)).json as Json;
    const scaled = { ...small, spec: { ...(small["spec"] as Json), replicas: 9 } };
    expect((await h.client.put(`${path}/small`, scaled)).status).toBe(422);
    // Another namespace is outside the policy's namespaceSelector.
    await created("/api/v1/namespaces", { metadata: { name: "unlabelled" } });
    expect(
      (await h.client.post("/apis/apps/v1/namespaces/unlabelled/deployments", deployment("big", 5)))
        .status,
    ).toBe(201);
  });

  it("Warn and Audit admit with a Warning header; variables, matchConditions and reason", async () => {
    const path = await scenario(
      "warn",
      [
        policyBody("warn-replicas.example.com", "warn", {
          variables: [
            { name: "replicas", expression: "object.spec.replicas" },
            { name: "tooMany", expression: "variables.replicas > 1" },
          ],
          matchConditions: [
            {
              name: "not-exempt",
              expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)",
            },
          ],
          validations: [
            {
              expression: "!variables.tooMany",
              messageExpression: "'has ' + string(variables.replicas) + ' replicas'",
            },
          ],
        }),
        policyBody("forbid-name.example.com", "warn", {
          validations: [{ expression: "object.metadata.name != 'forbidden'", reason: "Forbidden" }],
        }),
      ],
      [
        bindingBody("warn-binding", "warn-replicas.example.com", {
          validationActions: ["Warn", "Audit"],
        }),
        bindingBody("forbid-binding", "forbid-name.example.com"),
      ],
    );
    const warned = await h.client.post(path, deployment("many", 2));
    expect(warned.status).toBe(201);
    expect(header(warned, "warning")).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-replicas.example.com' with binding 'warn-binding': has 2 replicas"`,
    );
    const exempt = await h.client.post(path, deployment("exempt", 2, { exempt: "true" }));
    expect(exempt.status).toBe(201);
    expect(header(exempt, "warning")).toBeUndefined();
    const forbidden = await h.client.post(path, deployment("forbidden", 1));
    expect(forbidden.status).toBe(403);
    expect(forbidden.json["message"]).toBe(
      `deployments.apps "forbidden" is forbidden: ValidatingAdmissionPolicy 'forbid-name.example.com' with binding 'forbid-binding' denied request: failed expression: object.metadata.name != 'forbidden'`,
    );
  });

  it("failurePolicy Fail denies and Ignore admits when the param is missing", async () => {
    const path = await scenario(
      "missing",
      ["Fail", "Ignore"].map((failurePolicy) =>
        policyBody(`missing-${failurePolicy.toLowerCase()}.example.com`, "missing", {
          failurePolicy,
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          validations: [{ expression: "object.spec.replicas <= int(params.data.maxReplicas)" }],
        }),
      ),
      [
        bindingBody("missing-ignore-binding", "missing-ignore.example.com", {
          paramRef: { name: "absent", namespace: "params", parameterNotFoundAction: "Deny" },
        }),
      ],
    );
    expect((await h.client.post(path, deployment("ignored", 1))).status).toBe(201);
    await created(
      BINDINGS,
      bindingBody("missing-fail-binding", "missing-fail.example.com", {
        paramRef: { name: "absent", namespace: "params", parameterNotFoundAction: "Deny" },
      }),
    );
    const res = await h.client.post(path, deployment("denied", 1));
    expect(res.status).toBe(422);
    expect(res.json["message"]).toBe(
      "deployments.apps \"denied\" is forbidden: ValidatingAdmissionPolicy 'missing-fail.example.com' with binding 'missing-fail-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it("refuses invalid policies and bindings with kube's field errors", async () => {
    const res = await h.client.post(
      POLICIES,
      policyBody("broken.example.com", "none", { validations: [{ expression: "object.spec +" }] }),
    );
    expect(res.status).toBe(422);
    expect(res.json["message"]).toMatch(
      /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "broken\.example\.com" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.spec \+": compilation failed: ERROR: <input>:1:\d+: Syntax error/,
    );
    const binding = await h.client.post(
      BINDINGS,
      bindingBody("no-actions", "p", { validationActions: [] }),
    );
    expect(binding.status).toBe(422);
    expect(binding.json["message"]).toBe(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "no-actions" is invalid: spec.validationActions: Required value: at least one validation action is required',
    );
  });

  it("writes status.typeChecking against a custom resource's schema", async () => {
    await createCrd(h.client, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gadgets.vap.example.com" },
      spec: {
        group: "vap.example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                },
              },
            },
          },
        ],
      },
    });
    await waitForCrdEstablished(h.client, "gadgets.vap.example.com");
    const rule = {
      apiGroups: ["vap.example.com"],
      apiVersions: ["v1"],
      resources: ["gadgets"],
      operations: ["CREATE"],
    };
    await created(POLICIES, {
      metadata: { name: "gadget-size.example.com" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [rule] },
        validations: [
          { expression: "object.spec.size < 10" },
          { expression: "object.spec.colour == 'red'" },
        ],
      },
    });
    const status = await eventually("the policy's type-checking status", async () => {
      const res = await h.client.get(`${POLICIES}/gadget-size.example.com`);
      const s = (res.json as Json)["status"] as Json | undefined;
      return s?.["observedGeneration"] === 1 ? s : undefined;
    });
    // A policy on Deployments is checked against the built-in schema: nothing to report.
    expect(
      ((await h.client.get(`${POLICIES}/max-replicas.example.com`)).json as Json)["status"],
    ).toEqual({ observedGeneration: 1, typeChecking: {} });
    expect(status).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          {
            fieldRef: "spec.validations[1].expression",
            warning:
              "vap.example.com/v1, Kind=Gadget: ERROR: <input>:1:12: undefined field 'colour'\n | object.spec.colour == 'red'\n | ...........^\n",
          },
        ],
      },
    });
  });

  it("reads params of a custom kind by selector, evaluating once per param", async () => {
    // The Gadget CRD of the previous test serves the params.
    const gadgets = "/apis/vap.example.com/v1/namespaces/params/gadgets";
    for (const [name, size, tier] of [
      ["small", 2, "limits"],
      ["large", 4, "limits"],
      ["other", 1, "unrelated"],
    ] as const) {
      await created(gadgets, {
        apiVersion: "vap.example.com/v1",
        kind: "Gadget",
        metadata: { name, labels: { tier } },
        spec: { size },
      });
    }
    const path = await scenario(
      "gadgets",
      [
        policyBody("gadget-limits.example.com", "gadgets", {
          paramKind: { apiVersion: "vap.example.com/v1", kind: "Gadget" },
          validations: [
            {
              expression: "object.spec.replicas <= params.spec.size",
              messageExpression: "'more than ' + params.metadata.name + ' allows'",
            },
          ],
        }),
      ],
      [
        bindingBody("gadget-limits-binding", "gadget-limits.example.com", {
          paramRef: {
            namespace: "params",
            selector: { matchLabels: { tier: "limits" } },
            parameterNotFoundAction: "Deny",
          },
        }),
      ],
    );
    expect((await h.client.post(path, deployment("two", 2))).status).toBe(201);
    const res = await h.client.post(path, deployment("three", 3));
    expect(res.status).toBe(422);
    expect(res.json["message"]).toBe(
      `deployments.apps "three" is forbidden: ValidatingAdmissionPolicy 'gadget-limits.example.com' with binding 'gadget-limits-binding' denied request: more than small allows`,
    );
  });

  describe.skipIf(!hasKubectl)("with kubectl", () => {
    let home: string;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), "kubekit-vap-"));
      await h.server.writeKubeconfig(join(home, "kubeconfig"));
    });
    afterAll(async () => {
      await rm(home, { recursive: true, force: true });
    });

    function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      return new Promise((resolve) => {
        execFile(
          "kubectl",
          [...args, "--kubeconfig", join(home, "kubeconfig"), "--cache-dir", join(home, "cache")],
          { timeout: KUBECTL_TIMEOUT_MS, env: { PATH: process.env["PATH"] ?? "", HOME: home } },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
            resolve({ code, stdout: String(stdout), stderr: String(stderr) });
          },
        );
      });
    }

    it("kubectl apply shows the denial and the policy's warning", async () => {
      const manifest = join(home, "deployment.json");
      await writeFile(manifest, JSON.stringify(deployment("kubectl-big", 5)));
      const denied = await kubectl(["apply", "-n", "limits", "-f", manifest]);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain(
        `The deployments "kubectl-big" is invalid: : ValidatingAdmissionPolicy 'max-replicas.example.com' with binding 'max-replicas-binding' denied request: replicas must be no greater than 3`,
      );
      const warned = await kubectl(["apply", "-n", "warn", "-f", manifest]);
      expect(warned.code, warned.stderr).toBe(0);
      expect(warned.stderr).toContain(
        "Warning: Validation failed for ValidatingAdmissionPolicy 'warn-replicas.example.com' with binding 'warn-binding': has 5 replicas",
      );
    });
  });
});
