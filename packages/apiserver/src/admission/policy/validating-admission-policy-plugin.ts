/**
 * The ValidatingAdmissionPolicy admission plugin (kube's
 * `k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go` over the generic
 * policy source): every ValidatingAdmissionPolicyBinding whose policy exists makes a hook; a
 * request the policy's `matchConstraints` and the binding's `matchResources` both match is
 * evaluated once per param (see policy-evaluation.ts). Denied validations follow the binding's
 * `validationActions`: `Deny` fails the request, `Warn` adds a `Warning` header
 * (`Validation failed for ValidatingAdmissionPolicy 'P' with binding 'B': MESSAGE`), `Audit`
 * records the `validation.policy.admission.k8s.io/validation_failure` audit annotation.
 * Configuration errors (an unknown paramKind, a missing param with `Deny`, a misconfigured
 * paramRef) deny under the policy's failurePolicy Fail and are ignored under Ignore.
 *
 * The first denial answers as kube's: `<resource> "<name>" is forbidden:
 * ValidatingAdmissionPolicy 'P' with binding 'B' denied request: MESSAGE`, with the status
 * reason of the validation (`Invalid` 422 by default; `Forbidden` 403, `Unauthorized` 401,
 * `RequestEntityTooLarge` 413) and the message as the status' cause. Policies are compiled once
 * per resourceVersion.
 */
import { type JsonObject, newForbidden, newStatusError, type StatusError } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import type { ServedResource } from "../../registry/served-resource.js";
import type {
  AdmissionAttributes,
  AdmissionResult,
  ValidatingAdmissionPlugin,
} from "../admission-attributes.js";
import { type CompiledPolicy, compilePolicy } from "./compiled-policy.js";
import {
  isExemptAdmissionConfigurationResource,
  matchResources,
  rulesCouldMatch,
} from "./match-resources.js";
import { policyInput } from "./policy-cel.js";
import { evaluatePolicy, type PolicyDecision } from "./policy-evaluation.js";
import { collectParams, resolveParamKind } from "./policy-params.js";
import { requestBindings } from "./request-bindings.js";

/** Storage id of ValidatingAdmissionPolicies. */
export const POLICY_STORAGE_ID = "admissionregistration.k8s.io/validatingadmissionpolicies";
/** Storage id of ValidatingAdmissionPolicyBindings. */
export const BINDING_STORAGE_ID = "admissionregistration.k8s.io/validatingadmissionpolicybindings";

/** The audit annotation an `Audit` action records (kube's `publishValidationFailureAnnotation`). */
const VALIDATION_FAILURE_ANNOTATION = "validation.policy.admission.k8s.io/validation_failure";

interface Hook {
  readonly policy: JsonObject;
  readonly bindings: JsonObject[];
}

interface Denial {
  readonly policy: string;
  readonly binding: string | undefined;
  readonly message: string;
  readonly reason: string;
}

/** What one dispatch collects. */
class Outcome {
  readonly denials: Denial[] = [];
  readonly warnings: string[] = [];
  readonly auditAnnotations: Record<string, string> = {};

  configError(policy: CompiledPolicy, binding: string | undefined, error: string): void {
    if (policy.failurePolicy === "Ignore") return;
    const prefix =
      binding === undefined ? "failed to configure policy" : "failed to configure binding";
    this.denials.push({ policy: policy.name, binding, message: `${prefix}: ${error}`, reason: "" });
  }
}

function specOf(obj: JsonObject): JsonObject {
  return isJsonObject(obj["spec"]) ? obj["spec"] : {};
}

function nameOf(obj: JsonObject): string {
  const name = metadataOf(obj)?.["name"];
  return typeof name === "string" ? name : "";
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

/** kube's `reasonToCode`. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case "Forbidden":
      return 403;
    case "Unauthorized":
      return 401;
    case "RequestEntityTooLarge":
      return 413;
    default:
      return 422;
  }
}

/** kube's `extractResourceName`: the name, else the object's name or generateName, else `Unknown`. */
function resourceName(attrs: AdmissionAttributes): string {
  if (attrs.name !== "") return attrs.name;
  const meta = metadataOf(attrs.object);
  if (!attrs.object) return "Unknown";
  if (!meta) return "Unknown/errorGettingName";
  for (const key of ["name", "generateName"]) {
    const v = meta[key];
    if (typeof v === "string" && v !== "") return v;
  }
  return "Unknown";
}

function denialError(attrs: AdmissionAttributes, denial: Denial): StatusError {
  const message =
    denial.binding === undefined
      ? `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`
      : `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`;
  const info = attrs.entry.info;
  const name = resourceName(attrs);
  const forbidden = newForbidden({ group: info.group, resource: info.plural }, name, message);
  const reason = denial.reason || "Invalid";
  return newStatusError(reasonToCode(reason), reason as never, forbidden.message, {
    ...forbidden.status.details,
    causes: [{ message }],
  });
}

class ValidatingAdmissionPolicyPlugin implements ValidatingAdmissionPlugin {
  readonly name = "ValidatingAdmissionPolicy";
  readonly #ctx: ServerContext;
  readonly #compiled = new Map<string, CompiledPolicy>();

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  handles(attrs: AdmissionAttributes): boolean {
    if (isExemptAdmissionConfigurationResource(attrs)) return false;
    if (this.#ctx.storage.count(BINDING_STORAGE_ID) === 0) return false;
    return this.#hooks().some((hook) => {
      const constraints = specOf(hook.policy)["matchConstraints"];
      return isJsonObject(constraints) && rulesCouldMatch(this.#ctx, constraints, attrs);
    });
  }

  validate(attrs: AdmissionAttributes): Promise<AdmissionResult> {
    try {
      return Promise.resolve(this.#dispatch(attrs));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Policies with at least one binding, by policy name. */
  #hooks(): Hook[] {
    const byPolicy = new Map<string, Hook>();
    const storage = this.#ctx.storage;
    for (const [, binding] of storage.current(BINDING_STORAGE_ID)) {
      const policyName = specOf(binding)["policyName"];
      if (typeof policyName !== "string") continue;
      let hook = byPolicy.get(policyName);
      if (!hook) {
        const policy = storage.get(POLICY_STORAGE_ID, policyName);
        if (!policy) continue;
        hook = { policy, bindings: [] };
        byPolicy.set(policyName, hook);
      }
      hook.bindings.push(binding);
    }
    return [...byPolicy.values()];
  }

  #compile(policy: JsonObject): CompiledPolicy {
    const name = nameOf(policy);
    const rv = String(metadataOf(policy)?.["resourceVersion"] ?? "");
    const cached = this.#compiled.get(name);
    if (cached?.resourceVersion === rv) return cached;
    const compiled = compilePolicy(policy);
    this.#compiled.set(name, compiled);
    return compiled;
  }

  #dispatch(attrs: AdmissionAttributes): AdmissionResult {
    const outcome = new Outcome();
    if (!isExemptAdmissionConfigurationResource(attrs)) {
      const hooks = this.#hooks();
      // Compilations of policies no binding uses any more are dropped.
      const live = new Set(hooks.map((h) => nameOf(h.policy)));
      for (const name of this.#compiled.keys()) if (!live.has(name)) this.#compiled.delete(name);
      for (const hook of hooks) this.#dispatchHook(attrs, hook, outcome);
    }
    const first = outcome.denials[0];
    if (first) throw denialError(attrs, first);
    return { warnings: outcome.warnings, auditAnnotations: outcome.auditAnnotations };
  }

  #dispatchHook(attrs: AdmissionAttributes, hook: Hook, outcome: Outcome): void {
    const constraints = specOf(hook.policy)["matchConstraints"];
    if (!isJsonObject(constraints)) return;
    const matched = matchResources(this.#ctx, constraints, attrs);
    if (!matched) return;
    const policy = this.#compile(hook.policy);
    let paramResource: ServedResource | undefined;
    if (policy.paramKind) {
      const resolved = resolveParamKind(this.#ctx, policy.paramKind);
      if ("error" in resolved) {
        outcome.configError(policy, undefined, resolved.error);
        return;
      }
      paramResource = resolved.resource;
    }
    const published = new Map<string, string[]>();
    for (const binding of hook.bindings) {
      const spec = specOf(binding);
      const narrowing = spec["matchResources"];
      if (isJsonObject(narrowing) && !matchResources(this.#ctx, narrowing, attrs)) continue;
      const paramRef = isJsonObject(spec["paramRef"]) ? spec["paramRef"] : undefined;
      const params = collectParams(
        this.#ctx,
        policy.paramKind,
        paramResource,
        paramRef,
        attrs.namespace,
      );
      if (!params.ok) {
        outcome.configError(policy, nameOf(binding), params.error);
        continue;
      }
      const actions = strings(spec["validationActions"]);
      const bindings = requestBindings(this.#ctx, attrs, matched);
      for (const param of params.params) {
        const result = evaluatePolicy(policy, {
          ...bindings,
          params: policyInput(param ?? undefined),
        });
        for (const decision of result.decisions) {
          if (decision.action === "deny") this.#apply(policy, binding, actions, decision, outcome);
        }
        for (const [key, value] of result.auditAnnotations) {
          const values = published.get(key) ?? [];
          if (!values.includes(value)) values.push(value);
          published.set(key, values);
        }
      }
    }
    for (const [key, values] of published) {
      outcome.auditAnnotations[`${policy.name}/${key}`] = values.join(", ");
    }
  }

  #apply(
    policy: CompiledPolicy,
    binding: JsonObject,
    actions: readonly string[],
    decision: PolicyDecision,
    outcome: Outcome,
  ): void {
    const bindingName = nameOf(binding);
    for (const action of actions) {
      if (action === "Deny") {
        outcome.denials.push({
          policy: policy.name,
          binding: bindingName,
          message: decision.message,
          reason: decision.reason,
        });
      } else if (action === "Warn") {
        outcome.warnings.push(
          `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${decision.message}`,
        );
      } else if (action === "Audit") {
        outcome.auditAnnotations[VALIDATION_FAILURE_ANNOTATION] ??= JSON.stringify([
          {
            message: decision.message,
            policy: policy.name,
            binding: bindingName,
            expressionIndex: decision.index,
            validationActions: [...actions],
          },
        ]);
      }
    }
  }
}

/**
 * The ValidatingAdmissionPolicy plugin of the server `ctx` (see the module comment), for the
 * admission chain's validating phase. Policies and bindings are read from storage on every
 * request; `handles` is synchronous and cheap (no binding, or no policy rule naming the
 * request's resource and operation, means the plugin stays out of the request).
 */
export function createValidatingAdmissionPolicyPlugin(
  ctx: ServerContext,
): ValidatingAdmissionPlugin {
  return new ValidatingAdmissionPolicyPlugin(ctx);
}
