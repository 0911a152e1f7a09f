import { describe, expect, it } from "vitest";
import { type JsonObject, StatusError } from "kubekit";
import { FakeClock } from "kubekit/testing";
import type {
  AdmissionAttributes,
  AdmissionOperation,
} from "../../../../packages/apiserver/src/admission/admission-attributes.js";
import {
  BINDING_STORAGE_ID,
  createValidatingAdmissionPolicyPlugin,
  POLICY_STORAGE_ID,
} from "../../../../packages/apiserver/src/admission/policy/index.js";
import { typeCheckPolicy } from "../../../../packages/apiserver/src/admission/policy/type-checking.js";
import { ResourceRegistry } from "../../../../packages/apiserver/src/registry/registry.js";
import type { ServerContext } from "../../../../packages/apiserver/src/server/server-context.js";
import { Storage } from "../../../../packages/apiserver/src/storage/storage.js";
import { deleteContext } from "../kinds/kind-test-helpers.js";

/** A server context with storage and registry only (what the plugin reads). */
function context(): ServerContext {
  return {
    storage: new Storage(100),
    registry: new ResourceRegistry(),
    clock: new FakeClock(),
    behaviour: deleteContext().behaviour,
  } as unknown as ServerContext;
}

function put(ctx: ServerContext, storageId: string, key: string, obj: JsonObject): void {
  ctx.storage.commit(storageId, key, obj);
}

function namespace(ctx: ServerContext, name: string, labels: Record<string, string> = {}): void {
  put(ctx, "/namespaces", name, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels },
  });
}

const DEPLOYMENT_RULES = {
  resourceRules: [
    {
      apiGroups: ["apps"],
      apiVersions: ["v1"],
      resources: ["deployments"],
      operations: ["CREATE", "UPDATE"],
    },
  ],
};

function policy(ctx: ServerContext, name: string, spec: JsonObject): void {
  put(ctx, POLICY_STORAGE_ID, name, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name, generation: 1 },
    spec: { failurePolicy: "Fail", matchConstraints: DEPLOYMENT_RULES, ...spec },
  });
}

function binding(ctx: ServerContext, name: string, spec: JsonObject): void {
  put(ctx, BINDING_STORAGE_ID, name, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { validationActions: ["Deny"], ...spec },
  });
}

function deployment(
  name: string,
  replicas: number,
  labels: Record<string, string> = {},
): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default", labels },
    spec: { replicas },
  };
}

function attrs(
  ctx: ServerContext,
  object: JsonObject | undefined,
  operation: AdmissionOperation = "CREATE",
  oldObject?: JsonObject,
): AdmissionAttributes {
  const entry = ctx.registry.lookup("apps", "v1", "deployments");
  if (!entry) throw new Error("deployments not served");
  const meta = (object ?? oldObject)?.["metadata"] as JsonObject | undefined;
  return {
    operation,
    entry,
    subresource: "",
    namespace: String(meta?.["namespace"] ?? "default"),
    name: String(meta?.["name"] ?? ""),
    object,
    oldObject,
    dryRun: false,
    options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    userInfo: { name: "alice", groups: ["system:authenticated"] },
  };
}

async function denial(promise: Promise<unknown>): Promise<StatusError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof StatusError)) throw new Error(`expected a StatusError, got ${String(err)}`);
  return err;
}

describe("ValidatingAdmissionPolicy plugin", () => {
  it("stays out of requests without bindings, on other resources and on admission configuration", () => {
    const ctx = context();
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    expect(plugin.name).toBe("ValidatingAdmissionPolicy");
    policy(ctx, "p", { validations: [{ expression: "false" }] });
    expect(plugin.handles(attrs(ctx, deployment("web", 1)))).toBe(false);
    binding(ctx, "b", { policyName: "p" });
    expect(plugin.handles(attrs(ctx, deployment("web", 1)))).toBe(true);
    expect(plugin.handles(attrs(ctx, undefined, "DELETE", deployment("web", 1)))).toBe(false);
    const policies = ctx.registry.lookup(
      "admissionregistration.k8s.io",
      "v1",
      "validatingadmissionpolicies",
    );
    if (!policies) throw new Error("not served");
    expect(plugin.handles({ ...attrs(ctx, deployment("web", 1)), entry: policies })).toBe(false);
  });

  it("denies with a ConfigMap param as kube words it, and admits below the limit", async () => {
    const ctx = context();
    namespace(ctx, "default");
    put(ctx, "/configmaps", "default/limits", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "limits", namespace: "default" },
      data: { maxReplicas: "3" },
    });
    policy(ctx, "max-replicas", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [
        {
          expression: "object.spec.replicas <= int(params.data.maxReplicas)",
          messageExpression: "'replicas must be at most ' + params.data.maxReplicas",
        },
      ],
    });
    binding(ctx, "max-replicas-binding", {
      policyName: "max-replicas",
      paramRef: { name: "limits", parameterNotFoundAction: "Deny" },
    });
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    await expect(plugin.validate(attrs(ctx, deployment("web", 2)))).resolves.toEqual({
      warnings: [],
      auditAnnotations: {},
    });
    const err = await denial(plugin.validate(attrs(ctx, deployment("web", 5))));
    const message =
      "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be at most 3";
    expect(err.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `deployments.apps "web" is forbidden: ${message}`,
      reason: "Invalid",
      details: { name: "web", group: "apps", kind: "deployments", causes: [{ message }] },
      code: 422,
    });
  });

  it("Warn and Audit actions admit with a warning and an audit annotation", async () => {
    const ctx = context();
    policy(ctx, "p", {
      validations: [{ expression: "object.spec.replicas < 2", message: "too many" }],
    });
    binding(ctx, "warn", { policyName: "p", validationActions: ["Warn", "Audit"] });
    const result = await createValidatingAdmissionPolicyPlugin(ctx).validate(
      attrs(ctx, deployment("web", 3)),
    );
    expect(result.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': too many",
    ]);
    expect(
      JSON.parse(
        String(result.auditAnnotations["validation.policy.admission.k8s.io/validation_failure"]),
      ),
    ).toEqual([
      {
        message: "too many",
        policy: "p",
        binding: "warn",
        expressionIndex: 0,
        validationActions: ["Warn", "Audit"],
      },
    ]);
  });

  it("uses variables, matchConditions, reason and the fallback message", async () => {
    const ctx = context();
    policy(ctx, "p", {
      variables: [
        { name: "replicas", expression: "object.spec.replicas" },
        { name: "tooMany", expression: "variables.replicas > 4" },
      ],
      matchConditions: [
        { name: "not-exempt", expression: "!('exempt' in object.metadata.labels)" },
      ],
      validations: [{ expression: "!variables.tooMany", reason: "Forbidden" }],
      auditAnnotations: [{ key: "replicas", valueExpression: "string(variables.replicas)" }],
    });
    binding(ctx, "b", { policyName: "p" });
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    const err = await denial(plugin.validate(attrs(ctx, deployment("web", 5))));
    expect(err.code).toBe(403);
    expect(err.status.reason).toBe("Forbidden");
    expect(err.message).toBe(
      `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: !variables.tooMany`,
    );
    await expect(
      plugin.validate(attrs(ctx, deployment("web", 5, { exempt: "yes" }))),
    ).resolves.toEqual({ warnings: [], auditAnnotations: {} });
    await expect(plugin.validate(attrs(ctx, deployment("web", 1)))).resolves.toEqual({
      warnings: [],
      auditAnnotations: { "p/replicas": "1" },
    });
  });

  it("failurePolicy decides a missing param and an evaluation error", async () => {
    const ctx = context();
    namespace(ctx, "default");
    for (const failurePolicy of ["Fail", "Ignore"]) {
      policy(ctx, `p-${failurePolicy}`, {
        failurePolicy,
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        validations: [{ expression: "object.spec.replicas <= int(params.data.max)" }],
      });
      binding(ctx, `b-${failurePolicy}`, {
        policyName: `p-${failurePolicy}`,
        paramRef: { name: "missing", parameterNotFoundAction: "Deny" },
      });
    }
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    const err = await denial(plugin.validate(attrs(ctx, deployment("web", 1))));
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p-Fail' with binding 'b-Fail' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );

    const ctx2 = context();
    policy(ctx2, "p", { validations: [{ expression: "object.spec.missing > 1" }] });
    binding(ctx2, "b", { policyName: "p" });
    const evalErr = await denial(
      createValidatingAdmissionPolicyPlugin(ctx2).validate(attrs(ctx2, deployment("web", 1))),
    );
    expect(evalErr.message).toContain(
      "denied request: expression 'object.spec.missing > 1' resulted in error: no such key: missing",
    );
    policy(ctx2, "p", {
      failurePolicy: "Ignore",
      validations: [{ expression: "object.spec.missing > 1" }],
    });
    await expect(
      createValidatingAdmissionPolicyPlugin(ctx2).validate(attrs(ctx2, deployment("web", 1))),
    ).resolves.toEqual({ warnings: [], auditAnnotations: {} });
  });

  it("parameterNotFoundAction Allow admits, and a paramKind nothing serves is a policy error", async () => {
    const ctx = context();
    namespace(ctx, "default");
    policy(ctx, "p", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [{ expression: "false" }],
    });
    binding(ctx, "b", {
      policyName: "p",
      paramRef: { name: "missing", parameterNotFoundAction: "Allow" },
    });
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    await expect(plugin.validate(attrs(ctx, deployment("web", 1)))).resolves.toEqual({
      warnings: [],
      auditAnnotations: {},
    });
    policy(ctx, "p", {
      paramKind: { apiVersion: "example.com/v1", kind: "Limit" },
      validations: [{ expression: "false" }],
    });
    const err = await denial(plugin.validate(attrs(ctx, deployment("web", 1))));
    expect(err.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limit'",
    );
  });

  it("matches namespaceSelector, objectSelector, excludeResourceRules and the binding's matchResources", async () => {
    const ctx = context();
    namespace(ctx, "default", { env: "prod" });
    policy(ctx, "p", {
      matchConstraints: {
        ...DEPLOYMENT_RULES,
        namespaceSelector: { matchLabels: { env: "prod" } },
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        excludeResourceRules: [
          {
            apiGroups: ["apps"],
            apiVersions: ["v1"],
            resources: ["deployments"],
            operations: ["*"],
            resourceNames: ["excluded"],
          },
        ],
      },
      validations: [{ expression: "false", message: "no" }],
    });
    binding(ctx, "b", {
      policyName: "p",
      matchResources: { objectSelector: { matchLabels: { team: "a" } } },
    });
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    const admitted = { warnings: [], auditAnnotations: {} };
    await expect(plugin.validate(attrs(ctx, deployment("web", 1, { team: "a" })))).rejects.toThrow(
      /no$/,
    );
    await expect(plugin.validate(attrs(ctx, deployment("web", 1, { team: "b" })))).resolves.toEqual(
      admitted,
    );
    await expect(
      plugin.validate(attrs(ctx, deployment("web", 1, { team: "a", skip: "1" }))),
    ).resolves.toEqual(admitted);
    await expect(
      plugin.validate(attrs(ctx, deployment("excluded", 1, { team: "a" }))),
    ).resolves.toEqual(admitted);
    namespace(ctx, "default", { env: "dev" });
    await expect(plugin.validate(attrs(ctx, deployment("web", 1, { team: "a" })))).resolves.toEqual(
      admitted,
    );
  });

  it("binds request, oldObject and namespaceObject", async () => {
    const ctx = context();
    namespace(ctx, "default", { env: "prod" });
    policy(ctx, "p", {
      validations: [
        {
          expression:
            "request.operation == 'UPDATE' && request.userInfo.username == 'alice' && request.kind.kind == 'Deployment' && oldObject.spec.replicas == 1 && namespaceObject.metadata.labels.env == 'prod'",
          message: "bindings differ",
        },
      ],
    });
    binding(ctx, "b", { policyName: "p" });
    const plugin = createValidatingAdmissionPolicyPlugin(ctx);
    await expect(
      plugin.validate(attrs(ctx, deployment("web", 2), "UPDATE", deployment("web", 1))),
    ).resolves.toEqual({ warnings: [], auditAnnotations: {} });
    await expect(plugin.validate(attrs(ctx, deployment("web", 2)))).rejects.toThrow(
      /bindings differ$/,
    );
  });
  it("asks the server's authorizer through `authorizer` (allow-all without access control)", async () => {
    const ctx = context();
    policy(ctx, "p", {
      validations: [
        {
          expression:
            "authorizer.group('apps').resource('deployments').namespace('default').check('delete').allowed() && authorizer.requestResource.check('create').allowed()",
          messageExpression: "'not allowed'",
        },
        {
          expression:
            "authorizer.serviceAccount('default', 'builder').path('/healthz').check('get').allowed()",
          message: "service account denied",
        },
      ],
    });
    binding(ctx, "b", { policyName: "p" });
    const admitted = { warnings: [], auditAnnotations: {} };
    await expect(
      createValidatingAdmissionPolicyPlugin(ctx).validate(attrs(ctx, deployment("web", 1))),
    ).resolves.toEqual(admitted);
    const asked: string[] = [];
    const withRbac = {
      ...ctx,
      access: {
        authorizer: {
          mode: "RBAC",
          authorize: (a: {
            user: { name: string };
            verb: string;
            resource: string;
            path: string;
          }) => {
            asked.push(`${a.user.name} ${a.verb} ${a.resource || a.path}`);
            return { allowed: a.user.name !== "alice", reason: "" };
          },
        },
      },
    } as unknown as ServerContext;
    const err = await denial(
      createValidatingAdmissionPolicyPlugin(withRbac).validate(attrs(ctx, deployment("web", 1))),
    );
    expect(err.message).toMatch(/denied request: not allowed$/);
    expect(asked).toEqual([
      "alice delete deployments",
      "system:serviceaccount:default:builder get /healthz",
    ]);
  });
});

describe("ValidatingAdmissionPolicy type checking", () => {
  it("checks expressions against the built-in schemas of the kinds and the paramKind", () => {
    const ctx = context();
    const warnings = typeCheckPolicy(ctx, {
      metadata: { name: "p" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              resources: ["deployments", "replicasets"],
              operations: ["*"],
            },
            { apiGroups: ["*"], apiVersions: ["v1"], resources: ["pods"], operations: ["*"] },
          ],
        },
        validations: [
          {
            expression:
              "object.spec.replicas > 1 && object.metadata.labels.app == 'x' && object.spec.template.spec.containers.all(c, c.image != '')",
          },
          {
            expression: "true",
            messageExpression: "params.data.x + string(object.spec.strategy.type)",
          },
          { expression: "params.datum == null" },
        ],
      },
    });
    expect(warnings).toEqual([
      {
        fieldRef: "spec.validations[1].messageExpression",
        warning:
          "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:35: undefined field 'strategy'\n | params.data.x + string(object.spec.strategy.type)\n | ..................................^\n",
      },
      {
        fieldRef: "spec.validations[2].expression",
        warning: [
          "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'datum'\n | params.datum == null\n | ......^\n",
          "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'datum'\n | params.datum == null\n | ......^\n",
        ].join("\n"),
      },
    ]);
  });
});
