/**
 * The outcome of validating a value against an OpenAPI schema as kube-openapi's validator
 * collects it (`k8s.io/kube-openapi/pkg/validation/validate/result.go`): errors deduplicated by
 * their message, and a match count that `anyOf` / `oneOf` use to pick the alternative whose
 * errors are reported.
 */

/** The codes of kube-openapi's `errors.Validation` that apiextensions tells apart. */
export type OpenApiErrorCode =
  | "invalidType"
  | "required"
  | "tooLong"
  | "tooShort"
  | "pattern"
  | "enum"
  | "multipleOf"
  | "maximum"
  | "minimum"
  | "unique"
  | "maxItems"
  | "minItems"
  | "tooFewProperties"
  | "tooManyProperties"
  | "propertyNotAllowed"
  | "multipleOfMustBePositive"
  | "noAdditionalItems";

/**
 * One error of kube-openapi's validator: a `*errors.Validation` (`code` set, `name` the
 * dotted path relative to the validated value) or a composite error without a field (`anyOf`,
 * `oneOf`, `allOf`, `not`), which apiextensions reports on the caller's path.
 */
export interface OpenApiError {
  readonly code: OpenApiErrorCode | "composite";
  readonly name: string;
  readonly message: string;
  /** The offending value (`Value`); `undefined` is Go's nil. */
  readonly value?: unknown;
  /** The limit the value broke (`Valid`: maxLength, maxItems, maxProperties). */
  readonly valid?: number;
  /** The allowed values of an `enum` failure. */
  readonly values?: readonly unknown[];
}

/** A validation result: errors in order of discovery, each message once, and a match count. */
export class OpenApiResult {
  readonly errors: OpenApiError[] = [];
  matchCount = 0;
  #messages: Set<string> | undefined;

  /** Adds errors whose message is not already present (kube-openapi's `AddErrors`). */
  add(...errors: OpenApiError[]): void {
    for (const e of errors) {
      this.#messages ??= new Set(this.errors.map((x) => x.message));
      if (this.#messages.has(e.message)) continue;
      this.#messages.add(e.message);
      this.errors.push(e);
    }
  }

  /** Adds the errors and match counts of `others` (kube-openapi's `Merge`). */
  merge(...others: (OpenApiResult | undefined)[]): this {
    for (const other of others) {
      if (!other) continue;
      if (other.errors.length > 0) this.add(...other.errors);
      this.matchCount += other.matchCount;
    }
    return this;
  }

  /** Whether no error was found. */
  get isValid(): boolean {
    return this.errors.length === 0;
  }

  /** A result holding one error and no match (kube-openapi's `errorHelp.sErr`). */
  static of(error: OpenApiError): OpenApiResult {
    const r = new OpenApiResult();
    r.add(error);
    return r;
  }
}
