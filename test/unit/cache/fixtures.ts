import { DeletedFinalStateUnknown } from "kubekit";
import type { DeltaHandler } from "../../../packages/kubekit/src/cache/process-deltas.js";

/** A minimal Kubernetes-shaped object for cache tests. */
export interface Obj {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly node?: string; readonly tags?: readonly string[] };
  readonly transformed?: number;
}

/** `obj("ns/a", "3")` → namespace ns, name a, resourceVersion 3; `obj("a")` is cluster-scoped. */
export function obj(key: string, rv = "1", spec?: Obj["spec"]): Obj {
  const [first, second] = key.split("/");
  const metadata =
    second === undefined
      ? { name: first, resourceVersion: rv }
      : { namespace: first, name: second, resourceVersion: rv };
  return spec === undefined ? { metadata } : { metadata, spec };
}

/** `ns/a@3` for an object, `~ns/a@3` for a tombstone (`@-` when it holds no object). */
export function show(o: Obj | DeletedFinalStateUnknown<Obj>): string {
  if (o instanceof DeletedFinalStateUnknown) {
    return `~${o.key}@${o.obj?.metadata.resourceVersion ?? "-"}`;
  }
  const m = o.metadata;
  const key = m.namespace ? `${m.namespace}/${m.name ?? ""}` : (m.name ?? "");
  return `${key}@${m.resourceVersion ?? ""}${o.transformed ? `+t${o.transformed}` : ""}`;
}

/** A handler that records notifications as readable strings. */
export class Recorder implements DeltaHandler<Obj> {
  readonly events: string[] = [];
  onAdd(o: Obj, isInInitialList: boolean): void {
    this.events.push(`add ${show(o)}${isInInitialList ? " initial" : ""}`);
  }
  onUpdate(oldObj: Obj, newObj: Obj): void {
    this.events.push(`update ${show(oldObj)} -> ${show(newObj)}`);
  }
  onDelete(o: Obj | DeletedFinalStateUnknown<Obj>): void {
    this.events.push(`delete ${show(o)}`);
  }
}

/** A promise with its resolve/reject exposed. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise continuation and I/O callback run (one macrotask turn). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled. */
export function track<T>(p: Promise<T>): { readonly settled: boolean } {
  const state = { settled: false };
  p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}
