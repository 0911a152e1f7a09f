/**
 * Mutating admission webhooks (kube's `MutatingAdmissionWebhook` plugin,
 * `admission/plugin/webhook/mutating/dispatcher.go`): matching webhooks are called one after
 * the other (configurations by name, then webhook order), each on the object the previous one
 * left; a `JSONPatch` answer is applied to the object as the webhook saw it. When one changed
 * the object, the `IfNeeded` webhooks called before it run once more (reinvocation.ts).
 */
import {
  applyJsonPatch,
  formatApiVersion,
  JsonPatchError,
  newInternalError,
  type JsonObject,
  type JsonValue,
} from "kubekit";
import { deepEqual, isJsonObject } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import type {
  AdmissionAttributes,
  AdmissionResult,
  MutatingAdmissionPlugin,
} from "../admission-attributes.js";
import { attachWarnings } from "../admission-warnings.js";
import { versionedObject, type VerifiedAdmissionResponse } from "./admission-review.js";
import { callAdmissionWebhook } from "./call-admission-webhook.js";
import type { CompiledWebhook } from "./compiled-webhook.js";
import { CallingWebhookError, webhookDenial } from "./webhook-errors.js";
import { shouldCallWebhook, type WebhookInvocation } from "./webhook-matching.js";
import { addAuditAnnotations, conditionRequest } from "./webhook-request.js";
import type { WebhookSource } from "./webhook-source.js";
import { ReinvocationState } from "./reinvocation.js";

/** What the webhooks of one admission have produced so far. */
interface MutationState {
  object: JsonObject | undefined;
  readonly warnings: string[];
  readonly auditAnnotations: Record<string, string>;
  readonly reinvocation: ReinvocationState;
}

function decodePatch(name: string, patch: string): JsonValue[] {
  let ops: JsonValue;
  try {
    ops = JSON.parse(patch) as JsonValue;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CallingWebhookError(
      name,
      `received undecodable patch in webhook response: ${reason}`,
    );
  }
  if (!Array.isArray(ops)) {
    throw new CallingWebhookError(
      name,
      "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    );
  }
  return ops;
}

/**
 * The object after a webhook's patch (undefined: no patch), back at the request's version.
 * Errors as kube's: an undecodable patch or unsupported type fails the call, a patch that
 * does not apply (or one on a DELETE) is a 500.
 */
function patchedObject(
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
  response: VerifiedAdmissionResponse,
): JsonObject | undefined {
  const name = invocation.webhook.name;
  if (response.patch === undefined) return undefined;
  const ops = decodePatch(name, response.patch);
  if (ops.length === 0) return undefined;
  const seen = versionedObject(attrs.object, attrs, invocation);
  if (!seen) {
    throw newInternalError(
      `admission webhook "${name}" attempted to modify the object, which is not supported for this operation`,
    );
  }
  if (response.patchType !== "JSONPatch") {
    throw new CallingWebhookError(name, `unsupported patch type "${response.patchType ?? ""}"`);
  }
  let patched: JsonValue;
  try {
    patched = applyJsonPatch(seen, ops);
  } catch (err) {
    if (err instanceof JsonPatchError) throw newInternalError(err.message);
    throw err;
  }
  if (!isJsonObject(patched)) throw newInternalError("the patched object is not a JSON object");
  if (seen === attrs.object) return patched;
  return { ...patched, apiVersion: formatApiVersion(attrs.entry.info) };
}

/** Calls one webhook on the current object, recording what it changed; throws to deny. */
async function callMutating(
  ctx: ServerContext,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
  state: MutationState,
): Promise<void> {
  const hook = invocation.webhook;
  let changed = false;
  try {
    const response = await callAdmissionWebhook(ctx, invocation, attrs);
    addAuditAnnotations(state.auditAnnotations, hook.name, response.auditAnnotations);
    state.warnings.push(...response.warnings);
    if (!response.allowed) throw webhookDenial(hook.name, response.result);
    const patched = patchedObject(invocation, attrs, response);
    if (patched !== undefined && !deepEqual(patched, state.object)) {
      state.object = patched;
      changed = true;
    }
  } catch (err) {
    if (!(err instanceof CallingWebhookError)) throw attachWarnings(err, state.warnings);
    if (hook.failurePolicy !== "Ignore") {
      throw attachWarnings(err.toStatusError(), state.warnings);
    }
  }
  state.reinvocation.record(hook.uid, changed, hook.reinvocationPolicy === "IfNeeded");
}

/** One round over the webhooks; the second calls only those due again. */
async function mutationRound(
  ctx: ServerContext,
  hooks: readonly CompiledWebhook[],
  attrs: AdmissionAttributes,
  state: MutationState,
  reinvoking: boolean,
): Promise<void> {
  for (const hook of hooks) {
    if (reinvoking && !state.reinvocation.shouldReinvokeWebhook(hook.uid)) continue;
    const current = { ...attrs, object: state.object };
    const invocation = shouldCallWebhook(ctx, hook, current, conditionRequest(current));
    if (invocation) await callMutating(ctx, invocation, current, state);
  }
}

async function admitWithWebhooks(
  ctx: ServerContext,
  source: WebhookSource,
  attrs: AdmissionAttributes,
): Promise<AdmissionResult & { readonly object: JsonObject | undefined }> {
  const hooks = source.candidates("mutating", attrs);
  const state: MutationState = {
    object: attrs.object,
    warnings: [],
    auditAnnotations: {},
    reinvocation: new ReinvocationState(),
  };
  await mutationRound(ctx, hooks, attrs, state, false);
  if (state.reinvocation.shouldReinvoke) await mutationRound(ctx, hooks, attrs, state, true);
  return {
    object: state.object,
    warnings: state.warnings,
    auditAnnotations: state.auditAnnotations,
  };
}

/** The mutating webhooks of a server, read from `source`. */
export function createMutatingWebhookPlugin(
  ctx: ServerContext,
  source: WebhookSource,
): MutatingAdmissionPlugin {
  return {
    name: "MutatingAdmissionWebhook",
    handles: (attrs) => source.candidates("mutating", attrs).length > 0,
    admit: (attrs) => admitWithWebhooks(ctx, source, attrs),
  };
}
