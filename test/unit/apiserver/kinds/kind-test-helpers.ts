/**
 * What the per-kind strategy tests share: the pure hooks of a `KindStrategy` called with
 * deep-frozen inputs (a hook that mutates its input throws), the create and update pipelines
 * in the generic path's order, field errors as kube-apiserver prints them, and a minimal
 * `DeleteContext`.
 */
import type { FieldError, JsonObject } from "kubekit";
import { deepClone } from "kubekit/apimachinery";
import type {
  DeleteContext,
  DeleteDecision,
  KindStrategy,
} from "../../../../packages/apiserver/src/kinds/kind-strategy.js";
import { formatFieldError } from "../../../../packages/kubekit/src/core/field-errors.js";

/** `value` with every nested object and array frozen (in place); returns `value`. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A deep-frozen copy of `obj`: writing to it (at any depth) throws in strict mode. */
export function frozen(obj: JsonObject): JsonObject {
  return deepFreeze(deepClone(obj));
}

/**
 * The pure hooks of a strategy. Every call deep-freezes its inputs first, so each test also
 * checks that the hook leaves them alone; calling a hook the strategy lacks throws.
 */
export interface PureHooks {
  prepareForCreate(obj: JsonObject): JsonObject;
  prepareForUpdate(next: JsonObject, old: JsonObject): JsonObject;
  applyDefaults(obj: JsonObject): JsonObject;
  validateCreate(obj: JsonObject): FieldError[];
  validateUpdate(next: JsonObject, old: JsonObject): FieldError[];
  beforeDelete(existing: JsonObject, context?: DeleteContextOptions): DeleteDecision;
  /** prepareForCreate then applyDefaults (each when the strategy has it), as a create runs them. */
  created(obj: JsonObject): JsonObject;
  /** prepareForUpdate then applyDefaults (each when the strategy has it), as a spec update runs them. */
  updated(next: JsonObject, old: JsonObject): JsonObject;
}

function required<T>(hook: T | undefined, name: string): T {
  if (hook === undefined) throw new Error(`the strategy has no ${name} hook`);
  return hook;
}

/** The names of the pure hooks, in the order the write path runs them. */
export const PURE_HOOKS = [
  "prepareForCreate",
  "prepareForUpdate",
  "applyDefaults",
  "validateCreate",
  "validateUpdate",
  "beforeDelete",
] as const;

/** Which of the pure hooks `strategy` defines (a strategy with none gets the generic path only). */
export function definedHooks(strategy: KindStrategy): string[] {
  return PURE_HOOKS.filter((name) => strategy[name] !== undefined);
}

/** The pure hooks of `strategy`, see {@link PureHooks}. */
export function hooksOf(strategy: KindStrategy): PureHooks {
  const hooks: PureHooks = {
    prepareForCreate: (obj) => required(strategy.prepareForCreate, "prepareForCreate")(frozen(obj)),
    prepareForUpdate: (next, old) =>
      required(strategy.prepareForUpdate, "prepareForUpdate")(frozen(next), frozen(old)),
    applyDefaults: (obj) => required(strategy.applyDefaults, "applyDefaults")(frozen(obj)),
    validateCreate: (obj) => required(strategy.validateCreate, "validateCreate")(frozen(obj)),
    validateUpdate: (next, old) =>
      required(strategy.validateUpdate, "validateUpdate")(frozen(next), frozen(old)),
    beforeDelete: (existing, context = {}) =>
      required(strategy.beforeDelete, "beforeDelete")(frozen(existing), deleteContext(context)),
    created: (obj) => {
      const prepared = strategy.prepareForCreate ? hooks.prepareForCreate(obj) : obj;
      return strategy.applyDefaults ? hooks.applyDefaults(prepared) : prepared;
    },
    updated: (next, old) => {
      const prepared = strategy.prepareForUpdate ? hooks.prepareForUpdate(next, old) : next;
      return strategy.applyDefaults ? hooks.applyDefaults(prepared) : prepared;
    },
  };
  return hooks;
}

/**
 * Each field error as kube-apiserver prints it in a 422's message (field.Error.Error):
 * `<field>: <type's text>[: <bad value>][: <detail>]`. The type's text names the cause reason
 * (`Required value` FieldValueRequired, `Invalid value` FieldValueInvalid, `Unsupported value`
 * FieldValueNotSupported, `Forbidden`, `Duplicate value`, `Too long`, `Internal error`).
 */
export function messages(errors: readonly FieldError[]): string[] {
  return errors.map(formatFieldError);
}

/**
 * Each field error's type, field and detail, without its bad value: for the rules whose
 * value kube prints from its internal type (Go field names), which the wire JSON cannot match.
 */
export function withoutValues(
  errors: readonly FieldError[],
): { type: string; field: string; detail: string | undefined }[] {
  return errors.map((e) => ({ type: e.type, field: e.field, detail: e.detail }));
}

/** The server time every test delete runs at. */
export const DELETE_NOW = "2025-01-02T03:04:05Z";

/** What a test sets of a DeleteContext: any field, and the objects its storage holds. */
export type DeleteContextOptions = Partial<DeleteContext> & {
  /** `[storage id, key, object]` entries the context's storage answers `get` with. */
  readonly stored?: readonly (readonly [string, string, JsonObject])[];
};

/** A DeleteContext at {@link DELETE_NOW} for an object named `example`, with `overrides` applied. */
export function deleteContext(overrides: DeleteContextOptions = {}): DeleteContext {
  const { stored = [], ...rest } = overrides;
  const objects = new Map(stored.map(([resource, key, obj]) => [`${resource} ${key}`, obj]));
  return {
    name: "example",
    now: DELETE_NOW,
    nowMs: Date.parse(DELETE_NOW),
    behaviour: {
      historySize: 100,
      bookmarkIntervalMs: 60_000,
      maxWatchBacklogBytes: 1 << 20,
      maxTotalWatchBacklogBytes: 1 << 24,
      requestBodyTimeoutMs: 60_000,
      tooLargeResourceVersionWaitMs: 3_000,
      version: { major: "1", minor: "32", gitVersion: "v1.32.0-kubekit" },
      watchList: true,
    },
    storage: { get: (resource, key) => objects.get(`${resource} ${key}`) },
    ...rest,
  };
}
