/**
 * The compiled form of a schema's `x-kubernetes-validations`: the schema tree reduced to the
 * nodes that have rules or lead to nodes that do, each with its compiled rules and what the
 * evaluator needs to walk values and correlate old values (list type and map keys).
 */
import type { CelProgram } from "./compile-expression.js";
import type { DeclType } from "./decl-type.js";

/** One compiled rule. */
export interface CompiledRule {
  /** The rule's source (trimmed in messages). */
  readonly rule: string;
  readonly program: CelProgram;
  readonly message?: string;
  readonly messageExpression?: CelProgram;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  readonly reason?: string;
  /** Field path suffix from the rule's `fieldPath` (`.spec.x`, `[key]`), or "". */
  readonly fieldPathSuffix: string;
  /** The rule references `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
}

/** One schema node with rules at or below it. */
export interface RuleNode {
  /** The schema `type` printed as the bad value of rule errors (`"object"`, `"string"`, ...). */
  readonly schemaType: string;
  /** The CEL type of values at this node. */
  readonly declType: DeclType;
  readonly rules: readonly CompiledRule[];
  readonly properties?: ReadonlyMap<string, RuleNode>;
  readonly additionalProperties?: RuleNode;
  readonly items?: RuleNode;
  /** `x-kubernetes-list-type` of an array node. */
  readonly listType?: string;
  /** `x-kubernetes-list-map-keys` of a map list. */
  readonly listMapKeys?: readonly string[];
  /** `x-kubernetes-map-type` of an object node. */
  readonly mapType?: string;
}
