/**
 * Warnings that travel with an admission denial: kube adds a webhook's `warnings` to the
 * response before it looks at `allowed`, so a denied request still shows them. A plugin
 * attaches them to the error it throws; the chain reads them back.
 */

const ATTACHED = new WeakMap<object, readonly string[]>();

/** `err` with `warnings` attached (returned for `throw attachWarnings(err, w)`). */
export function attachWarnings(err: unknown, warnings: readonly string[]): unknown {
  if (typeof err === "object" && err !== null && warnings.length > 0) {
    ATTACHED.set(err, [...(ATTACHED.get(err) ?? []), ...warnings]);
  }
  return err;
}

/** The warnings attached to `err` (none when it carries none). */
export function attachedWarnings(err: unknown): readonly string[] {
  return typeof err === "object" && err !== null ? (ATTACHED.get(err) ?? []) : [];
}
