/**
 * The points where a write stops for admission, and the two ways to run a write through them.
 *
 * The generic store's writes (`resource-operations.ts`) are generators: they run their
 * synchronous phases and `yield` an {@link AdmissionStep} where kube-apiserver calls admission
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`, `update.go`, `patch.go`,
 * `delete.go`): mutating admission on the decoded and defaulted object before
 * `rest.BeforeCreate`/`BeforeUpdate`, validating admission on the final object before storage.
 * They are resumed with the object to go on with. {@link runWithoutAdmission} resumes every
 * step at once (in-process writers: controllers, subresources); {@link runWithAdmission}
 * awaits the admission chain only at the steps a plugin handles, so a write no plugin handles
 * stays synchronous from its read to its commit.
 *
 * Between an awaited step and the commit another write may change the object: the write then
 * throws {@link StaleWriteError} at its commit and {@link retryStaleWrites} runs it again from
 * its read, as `GuaranteedUpdate` retries (a PUT that carries the stale resourceVersion then
 * fails its precondition with kube's 409 Conflict).
 */
import { newConflict, type JsonObject } from "kubekit";
import type { AdmissionAttributes, AdmissionOperation } from "../admission/admission-attributes.js";
import type { AdmissionChain } from "../admission/admission-chain.js";
import type { UserInfo } from "../auth/authentication.js";
import type { ResourceEntry } from "../registry/registry.js";
import { groupResource } from "../registry/served-entry.js";

/** The parts of a request's admission attributes the store knows (the rest is the request's). */
export interface AdmissionStepAttributes {
  readonly operation: AdmissionOperation;
  readonly entry: ResourceEntry;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly object: JsonObject | undefined;
  readonly oldObject: JsonObject | undefined;
  readonly dryRun: boolean;
}

/** One stop of a write for admission: mutate (the answer is the object to go on with) or validate. */
export interface AdmissionStep {
  readonly phase: "mutate" | "validate";
  readonly attrs: AdmissionStepAttributes;
  /**
   * The object admission sees, when it differs from `attrs.object` and costs something to
   * build (the defaulted object mutating admission sees): built only when a plugin handles
   * the stop, which `handles` decides from `attrs`.
   */
  readonly prepare?: () => JsonObject;
}

/**
 * A stop of an admitted write for asynchronous work that is not admission: a custom resource
 * converted by its CRD's conversion webhook. Resumed with the work's object.
 */
export interface AwaitStep {
  readonly phase: "await";
  run(): Promise<JsonObject>;
}

/** What a write yields. */
export type WriteStep = AdmissionStep | AwaitStep;

/** A write run step by step: yields its admission stops, is resumed with the admitted object. */
export type WriteSteps<T> = Generator<WriteStep, T, JsonObject | undefined>;

/** What a request adds to the store's attributes, and where admission's warnings go. */
export interface AdmissionRequest {
  readonly chain: AdmissionChain;
  readonly userInfo: UserInfo;
  /**
   * The request's options as sent to webhooks for an operation (`CreateOptions` for a PUT or
   * apply that creates, `UpdateOptions` for a patch, `DeleteOptions`, …).
   */
  optionsFor(operation: AdmissionOperation): JsonObject;
  /** Collects the `Warning` header texts of admission plugins. */
  readonly warnings: string[];
}

/**
 * Thrown at a commit when the stored object is no longer the one the write read before it
 * awaited admission; {@link retryStaleWrites} runs the write again.
 */
export class StaleWriteError extends Error {
  constructor(
    readonly entry: ResourceEntry,
    readonly objectName: string,
  ) {
    super(`${entry.info.plural} "${objectName}" changed while the write was being admitted`);
    this.name = "StaleWriteError";
  }
}

/**
 * Runs a write with every admission stop passed through unchanged (no await, no plugin).
 * Writes run this way never yield an {@link AwaitStep} (they convert synchronously).
 */
export function runWithoutAdmission<T>(steps: WriteSteps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.phase === "await") throw new Error("a synchronous write cannot await a conversion");
    next = steps.next(step.attrs.object);
  }
  return next.value;
}

function attributesOf(step: AdmissionStep, request: AdmissionRequest): AdmissionAttributes {
  const options = request.optionsFor(step.attrs.operation);
  return { ...step.attrs, options, userInfo: request.userInfo };
}

function handled(step: WriteStep, request: AdmissionRequest): AdmissionAttributes | undefined {
  if (step.phase === "await") return undefined;
  const attrs = attributesOf(step, request);
  const chain = request.chain;
  const handles =
    step.phase === "mutate" ? chain.handlesMutation(attrs) : chain.handlesValidation(attrs);
  return handles ? attrs : undefined;
}

/**
 * Runs a write through the admission chain: synchronously (returning `T`) while no plugin
 * handles a stop, asynchronously (returning a promise) from the first stop one handles.
 * A denial rejects, and the write stops before anything is stored.
 */
export function runWithAdmission<T>(
  steps: WriteSteps<T>,
  request: AdmissionRequest,
): T | Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.phase === "await") return continueAdmitted(steps, step, request);
    const attrs = handled(step, request);
    if (attrs) return continueAdmitted(steps, prepared(step, attrs), request);
    next = steps.next(step.attrs.object);
  }
  return next.value;
}

/** A stop to await: admission with the request's complete attributes, or other work. */
type PendingStep =
  AwaitStep | { readonly phase: "mutate" | "validate"; readonly attrs: AdmissionAttributes };

/** The stop to await with its complete attributes, its object prepared. */
function prepared(step: AdmissionStep, attrs: AdmissionAttributes): PendingStep {
  const object = step.prepare ? step.prepare() : attrs.object;
  return { phase: step.phase, attrs: object === attrs.object ? attrs : { ...attrs, object } };
}

async function runStep(
  step: PendingStep,
  request: AdmissionRequest,
): Promise<JsonObject | undefined> {
  if (step.phase === "await") return step.run();
  if (step.phase === "mutate") return request.chain.mutate(step.attrs, request.warnings);
  await request.chain.validate(step.attrs, request.warnings);
  return step.attrs.object;
}

async function continueAdmitted<T>(
  steps: WriteSteps<T>,
  first: PendingStep,
  request: AdmissionRequest,
): Promise<T> {
  let next = steps.next(await runStep(first, request));
  while (!next.done) {
    const step = next.value;
    if (step.phase === "await") {
      next = steps.next(await step.run());
      continue;
    }
    const attrs = handled(step, request);
    next = steps.next(attrs ? await runStep(prepared(step, attrs), request) : step.attrs.object);
  }
  return next.value;
}

/** How many times a write whose object changed while it was admitted is run again. */
const STALE_WRITE_ATTEMPTS = 5;

/**
 * Runs `attempt` (a write from its read) and runs it again when it threw
 * {@link StaleWriteError} after awaiting admission, up to a bound; then answers kube's 409.
 * A synchronous attempt is returned as is (it cannot be stale).
 */
export function retryStaleWrites<T>(attempt: () => T | Promise<T>): T | Promise<T> {
  const first = attempt();
  if (!(first instanceof Promise)) return first;
  return (async () => {
    let pending: T | Promise<T> = first;
    for (let i = 1; ; i++) {
      try {
        return await pending;
      } catch (err) {
        if (!(err instanceof StaleWriteError)) throw err;
        if (i >= STALE_WRITE_ATTEMPTS) {
          throw newConflict(
            groupResource(err.entry),
            err.objectName,
            "the object has been modified; please apply your changes to the latest version and try again",
          );
        }
        pending = attempt();
      }
    }
  })();
}
