import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { validatingAdmissionPolicyStrategy } from "../../../../packages/apiserver/src/kinds/validating-admission-policy.js";
import { validatingAdmissionPolicyBindingStrategy } from "../../../../packages/apiserver/src/kinds/validating-admission-policy-binding.js";
import { hooksOf, messages, withoutValues } from "./kind-test-helpers.js";

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their bindings. */

const policy = hooksOf(validatingAdmissionPolicyStrategy);
const binding = hooksOf(validatingAdmissionPolicyBindingStrategy);

const RULES = {
  resourceRules: [
    {
      apiGroups: ["apps"],
      apiVersions: ["v1"],
      resources: ["deployments"],
      operations: ["CREATE"],
    },
  ],
};

function vap(spec: JsonObject): JsonObject {
  return policy.applyDefaults({
    metadata: { name: "demo.example.com" },
    spec: { matchConstraints: RULES, validations: [{ expression: "true" }], ...spec },
  });
}

function vapb(spec: JsonObject): JsonObject {
  return binding.applyDefaults({
    metadata: { name: "demo-binding" },
    spec: { policyName: "demo.example.com", validationActions: ["Deny"], ...spec },
  });
}

describe("ValidatingAdmissionPolicy", () => {
  it("defaults failurePolicy, matchPolicy, selectors and rule scopes", () => {
    expect(vap({})["spec"]).toEqual({
      failurePolicy: "Fail",
      matchConstraints: {
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ ...RULES.resourceRules[0], scope: "*" }],
      },
      validations: [{ expression: "true" }],
    });
    expect(validatingAdmissionPolicyStrategy.policy).toEqual({ tracksGeneration: true });
  });

  it("accepts a policy with params, variables, match conditions and audit annotations", () => {
    expect(
      policy.validateCreate(
        vap({
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          variables: [
            { name: "replicas", expression: "object.spec.replicas" },
            { name: "limit", expression: "int(params.data.max)" },
          ],
          matchConditions: [
            { name: "not-system", expression: "request.namespace != 'kube-system'" },
          ],
          validations: [
            {
              expression: "variables.replicas <= variables.limit",
              messageExpression: "'at most ' + string(variables.limit)",
              reason: "Forbidden",
            },
          ],
          auditAnnotations: [{ key: "replicas", valueExpression: "string(variables.replicas)" }],
        }),
      ),
    ).toEqual([]);
  });

  it("requires failurePolicy, matchConstraints with resourceRules, and validations or auditAnnotations", () => {
    expect(
      messages(
        policy.validateCreate({
          metadata: { name: "p" },
          spec: { failurePolicy: "Sometimes", matchConstraints: { matchPolicy: "Exact" } },
        }),
      ),
    ).toEqual([
      'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      "spec.matchConstraints.namespaceSelector: Required value",
      "spec.matchConstraints.objectSelector: Required value",
      "spec.matchConstraints.resourceRules: Required value",
      "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
      "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ]);
    expect(
      messages(
        policy.validateCreate({
          metadata: { name: "p" },
          spec: { validations: [{ expression: "true" }] },
        }),
      ),
    ).toEqual(["spec.failurePolicy: Required value", "spec.matchConstraints: Required value"]);
  });

  it("compiles expressions with kube's wording", () => {
    const errors = policy.validateCreate(
      vap({
        validations: [
          { expression: "object.spec.replicas >" },
          { expression: "'text'", message: "two\nlines" },
          { expression: "params == null", messageExpression: "  " },
          { expression: "true", messageExpression: "1", reason: "Conflict" },
          { expression: " " },
        ],
      }),
    );
    const msgs = messages(errors);
    expect(msgs[0]).toMatch(
      /^spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas >": compilation failed: ERROR: <input>:1:\d+: Syntax error/,
    );
    expect(msgs.slice(1)).toEqual([
      `spec.validations[1].expression: Invalid value: "'text'": must evaluate to bool`,
      'spec.validations[1].message: Invalid value: "two\\nlines": message must not contain line breaks',
      `spec.validations[2].expression: Invalid value: "params == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^`,
      'spec.validations[2].messageExpression: Invalid value: "  ": must be non-empty if specified',
      'spec.validations[3].messageExpression: Invalid value: "1": must evaluate to string',
      'spec.validations[3].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
      "spec.validations[4].expression: Required value: expression is not specified",
    ]);
  });

  it("checks variables, match conditions, paramKind, audit annotations and rules", () => {
    const errors = policy.validateCreate(
      vap({
        paramKind: { apiVersion: "a/b/c", kind: "" },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["*", "apps"],
              apiVersions: [],
              resources: ["*", "pods"],
              operations: ["PATCH"],
            },
          ],
        },
        variables: [
          { name: "in", expression: "1" },
          { name: "ok", expression: "variables.later" },
        ],
        matchConditions: [
          { name: "a", expression: "true" },
          { name: "a", expression: "1" },
        ],
        auditAnnotations: [{ key: "bad key", valueExpression: "1" }],
      }),
    );
    expect(withoutValues(errors)).toEqual([
      {
        type: "FieldValueInvalid",
        field: "spec.paramKind.apiVersion",
        detail: "unexpected GroupVersion string: a/b/c",
      },
      { type: "FieldValueRequired", field: "spec.paramKind.kind", detail: undefined },
      {
        type: "FieldValueNotSupported",
        field: "spec.matchConstraints.resourceRules[0].operations[0]",
        detail: 'supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      },
      {
        type: "FieldValueInvalid",
        field: "spec.matchConstraints.resourceRules[0].apiGroups",
        detail: "if '*' is present, must not specify other API groups",
      },
      {
        type: "FieldValueRequired",
        field: "spec.matchConstraints.resourceRules[0].apiVersions",
        detail: undefined,
      },
      {
        type: "FieldValueInvalid",
        field: "spec.matchConstraints.resourceRules[0].resources",
        detail: "if '*' is present, must not specify other resources without subresources",
      },
      {
        type: "FieldValueInvalid",
        field: "spec.matchConditions[1].expression",
        detail: "must evaluate to bool",
      },
      { type: "FieldValueDuplicate", field: "spec.matchConditions[1].name", detail: undefined },
      {
        type: "FieldValueInvalid",
        field: "spec.variables[0].name",
        detail: "name is not a valid CEL identifier",
      },
      {
        type: "FieldValueInvalid",
        field: "spec.variables[1].expression",
        detail: expect.stringContaining(
          "compilation failed: ERROR: <input>:1:10: undefined field 'later'",
        ),
      },
      {
        type: "FieldValueInvalid",
        field: "spec.auditAnnotations[0].key",
        detail: expect.stringContaining("name part must consist of alphanumeric characters"),
      },
      {
        type: "FieldValueInvalid",
        field: "spec.auditAnnotations[0].valueExpression",
        detail: "must evaluate to one of [string null_type]",
      },
    ]);
  });

  it("skips unchanged match conditions on update and checks status warnings", () => {
    const old = vap({ matchConditions: [{ name: "legacy", expression: "1 == 1" }] });
    const next = vap({
      matchConditions: [{ name: "legacy", expression: "1 == 1" }],
      validations: [{ expression: "false" }],
    });
    expect(policy.validateUpdate(next, old)).toEqual([]);
    const status = validatingAdmissionPolicyStrategy.status?.validateUpdate;
    expect(
      status?.(
        { ...next, status: { typeChecking: { expressionWarnings: [{ fieldRef: "" }] } } },
        old,
      ),
    ).toEqual([
      expect.objectContaining({ field: "status.typeChecking.expressionWarnings[0].warning" }),
      expect.objectContaining({ field: "status.typeChecking.expressionWarnings[0].fieldRef" }),
    ]);
  });
});

describe("ValidatingAdmissionPolicyBinding", () => {
  it("accepts a binding with a paramRef and narrowing matchResources, defaulted", () => {
    const b = vapb({
      paramRef: { name: "limits", namespace: "default", parameterNotFoundAction: "Deny" },
      matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } },
      validationActions: ["Warn", "Audit"],
    });
    expect((b["spec"] as JsonObject)["matchResources"]).toEqual({
      namespaceSelector: { matchLabels: { env: "prod" } },
      objectSelector: {},
      matchPolicy: "Equivalent",
    });
    expect(binding.validateCreate(b)).toEqual([]);
  });

  it("checks policyName, paramRef and validationActions as kube words them", () => {
    expect(
      messages(
        binding.validateCreate({
          metadata: { name: "b" },
          spec: {
            paramRef: { name: "x", selector: {}, parameterNotFoundAction: "Maybe" },
            validationActions: ["Deny", "Warn", "Deny", "Block"],
          },
        }),
      ),
    ).toEqual([
      "spec.policyName: Required value",
      "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions[3]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
      expect.stringMatching(
        /^spec\.validationActions: Invalid value: .*must not contain both Deny and Warn/,
      ),
    ]);
    expect(messages(binding.validateCreate(vapb({ paramRef: {}, validationActions: [] })))).toEqual(
      [
        "spec.paramRef: Required value: one of name or selector must be specified",
        "spec.paramRef.parameterNotFoundAction: Required value",
        "spec.validationActions: Required value: at least one validation action is required",
      ],
    );
    expect(
      withoutValues(
        binding.validateCreate(
          vapb({
            matchResources: { matchPolicy: "Fuzzy", resourceRules: [{ operations: ["*"] }] },
          }),
        ),
      ).map((e) => e.field),
    ).toEqual([
      "spec.matchResouces.matchPolicy",
      "spec.matchResouces.resourceRules[0].apiGroups",
      "spec.matchResouces.resourceRules[0].apiVersions",
      "spec.matchResouces.resourceRules[0].resources",
    ]);
  });
});
