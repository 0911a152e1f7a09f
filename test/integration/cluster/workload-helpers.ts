import type { Pod } from "kubernetes-types/core/v1.js";
import type { FakeClock } from "kubekit/testing";
import type { Clientset } from "kubekit";
import type { ApiServer } from "@kubekit/apiserver";

/**
 * What happened to the pods of a namespace, in the order the API server's watch reported it:
 * `created <name>` (ADDED), `ready <name>` (the first event with Ready=True of that pod),
 * `deleting <name>` (the first event with a deletionTimestamp) and `deleted <name>` (DELETED). Started at the namespace's current resourceVersion; stop it
 * with {@link PodHistory.stop}.
 */
export class PodHistory {
  readonly entries: string[] = [];
  readonly #abort = new AbortController();
  readonly #done: Promise<void>;

  private constructor(done: (history: PodHistory, signal: AbortSignal) => Promise<void>) {
    this.#done = done(this, this.#abort.signal);
  }

  /** Starts recording the pods of `namespace`. */
  static async start(cs: Clientset, namespace: string): Promise<PodHistory> {
    const client = cs.coreV1.pods(namespace);
    const list = await client.list();
    const rv = list.metadata?.resourceVersion ?? "0";
    return new PodHistory(async (history, signal) => {
      const deleting = new Set<string>();
      const ready = new Set<string>();
      try {
        for await (const ev of client.watch({ resourceVersion: rv, signal })) {
          if (ev.type === "BOOKMARK" || ev.type === "ERROR") continue;
          const pod = ev.object as Pod;
          const name = pod.metadata?.name ?? "";
          const uid = pod.metadata?.uid ?? "";
          if (ev.type === "ADDED") history.entries.push(`created ${name}`);
          const isReady = pod.status?.conditions?.some(
            (c) => c.type === "Ready" && c.status === "True",
          );
          if (isReady === true && !ready.has(uid)) {
            ready.add(uid);
            history.entries.push(`ready ${name}`);
          }
          if (pod.metadata?.deletionTimestamp !== undefined && !deleting.has(uid)) {
            deleting.add(uid);
            history.entries.push(`deleting ${name}`);
          }
          if (ev.type === "DELETED") history.entries.push(`deleted ${name}`);
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    });
  }

  /** The entries of one kind, as pod names. */
  of(kind: "created" | "ready" | "deleting" | "deleted"): string[] {
    return this.entries
      .filter((e) => e.startsWith(`${kind} `))
      .map((e) => e.slice(kind.length + 1));
  }

  /** The position of `entry` (e.g. `"deleted web-2"`), -1 when it did not happen. */
  indexOf(entry: string): number {
    return this.entries.indexOf(entry);
  }

  /** Stops the watch. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }
}

/** Creates a namespace for one test. */
export async function createTestNamespace(cs: Clientset, name: string): Promise<string> {
  await cs.coreV1.namespaces().create({ metadata: { name } });
  return name;
}

/** The Events of `namespace` about the object `name`, as `reason: message`, oldest first. */
export async function eventsAbout(
  cs: Clientset,
  namespace: string,
  name: string,
): Promise<string[]> {
  const events = await cs.coreV1.events(namespace).list();
  return events.items
    .filter((e) => e.involvedObject.name === name)
    .map((e) => `${e.reason}: ${e.message}`);
}

/**
 * Advances `clock` by `stepMs` at a time, letting the cluster react between steps, until
 * `probe` yields a value (at most `maxMs` of simulated time).
 */
export async function advanceUntil<T>(
  clock: FakeClock,
  what: string,
  probe: () => Promise<T | undefined>,
  stepMs: number,
  maxMs: number,
): Promise<T> {
  const start = clock.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (clock.now() - start > maxMs) throw new Error(`timed out waiting for ${what}`);
    clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Makes `server` refuse (403 Forbidden) the next 1,000 pod creates in `namespace`. */
export function refusePodCreates(server: ApiServer, namespace: string): void {
  server.faults.failNext(1_000, { code: 403, verbs: ["create"], resource: "pods", namespace });
}
