import { DeletedFinalStateUnknown } from "kubekit";
import type { ResourceEventHandler } from "../../../packages/kubekit/src/cache/shared-index-informer.js";

/** What the object handed to a handler carries, for assertions. */
interface Named {
  metadata?: { name?: string; namespace?: string };
}

/** One handler call. */
export interface RecordedEvent<T> {
  readonly type: "add" | "update" | "delete";
  /** `namespace/name`, or `name` for cluster-scoped objects (a tombstone's key). */
  readonly key: string;
  readonly obj: T | undefined;
  readonly oldObj?: T;
  readonly isInInitialList?: boolean;
}

function keyOf(obj: Named): string {
  const name = obj.metadata?.name ?? "";
  const namespace = obj.metadata?.namespace ?? "";
  return namespace === "" ? name : `${namespace}/${name}`;
}

/** Records every call of its handler and lets a test await a matching call. */
export class EventRecorder<T extends Named> {
  readonly events: RecordedEvent<T>[] = [];
  readonly #waiters: {
    match: (e: RecordedEvent<T>) => boolean;
    resolve: (e: RecordedEvent<T>) => void;
  }[] = [];

  readonly handler: ResourceEventHandler<T> = {
    onAdd: (obj, isInInitialList) =>
      this.#record({ type: "add", key: keyOf(obj), obj, isInInitialList }),
    onUpdate: (oldObj, newObj) =>
      this.#record({ type: "update", key: keyOf(newObj), obj: newObj, oldObj }),
    onDelete: (obj) =>
      this.#record(
        obj instanceof DeletedFinalStateUnknown
          ? { type: "delete", key: obj.key, obj: obj.obj }
          : { type: "delete", key: keyOf(obj), obj },
      ),
  };

  /** The first recorded event (past or future) of this type and key. */
  waitFor(type: RecordedEvent<T>["type"], key: string): Promise<RecordedEvent<T>> {
    const match = (e: RecordedEvent<T>): boolean => e.type === type && e.key === key;
    const seen = this.events.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** The keys of the recorded events of one type, in order. */
  keys(type: RecordedEvent<T>["type"]): string[] {
    return this.events.filter((e) => e.type === type).map((e) => e.key);
  }

  #record(event: RecordedEvent<T>): void {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(event)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  }
}
