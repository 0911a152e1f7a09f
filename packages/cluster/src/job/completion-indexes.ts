/**
 * The completion indexes of an Indexed Job (`pkg/controller/job/indexed_job_utils.go`): the
 * index each pod carries, and sets of indexes as the ordered intervals `status.completedIndexes`
 * writes (`1,3-5,7`).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { annotationOf } from "kubekit/apimachinery";

/** The pod annotation (and, since 1.28, label) holding a pod's completion index. */
export const JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

/** The environment variable a pod of an Indexed Job reads its index from. */
export const JOB_COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";

/**
 * The completion index of a pod (its {@link JOB_COMPLETION_INDEX} annotation), or undefined
 * when it has none or it is not a non-negative integer (`getCompletionIndex`).
 */
export function completionIndexOf(pod: Pod): number | undefined {
  const value = annotationOf(pod, JOB_COMPLETION_INDEX);
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const index = Number(value);
  return Number.isSafeInteger(index) ? index : undefined;
}

/** An inclusive range of indexes. */
interface Interval {
  readonly first: number;
  readonly last: number;
}

/**
 * A set of completion indexes as sorted, disjoint, non-adjacent intervals (kube's
 * `orderedIntervals`). Immutable.
 */
export class CompletionIndexes {
  readonly #intervals: readonly Interval[];

  private constructor(intervals: readonly Interval[]) {
    this.#intervals = intervals;
  }

  /** No index. */
  static readonly EMPTY = new CompletionIndexes([]);

  /**
   * Parses `status.completedIndexes` (`parseIndexesFromString`): comma-separated indexes and
   * `first-last` ranges; malformed parts are skipped and indexes at or above `completions`
   * dropped, as kube does when a Job is scaled down.
   */
  static parse(text: string | undefined, completions: number): CompletionIndexes {
    const indexes: number[] = [];
    for (const part of (text ?? "").split(",")) {
      const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
      if (match === null) continue;
      const first = Number(match[1]);
      const last = Math.min(Number(match[2] ?? match[1]), completions - 1);
      for (let i = first; i <= last; i++) indexes.push(i);
    }
    return CompletionIndexes.EMPTY.with(indexes);
  }

  /** This set with `indexes` added (`withOrderedIndexes`). */
  with(indexes: Iterable<number>): CompletionIndexes {
    const all = new Set<number>();
    for (const { first, last } of this.#intervals) for (let i = first; i <= last; i++) all.add(i);
    for (const i of indexes) all.add(i);
    const sorted = [...all].sort((a, b) => a - b);
    const intervals: Interval[] = [];
    for (const i of sorted) {
      const tail = intervals.at(-1);
      if (tail !== undefined && tail.last + 1 === i)
        intervals[intervals.length - 1] = { ...tail, last: i };
      else intervals.push({ first: i, last: i });
    }
    return new CompletionIndexes(intervals);
  }

  /** Whether `index` is in the set. */
  has(index: number): boolean {
    return this.#intervals.some(({ first, last }) => first <= index && index <= last);
  }

  /** How many indexes the set holds. */
  get total(): number {
    return this.#intervals.reduce((n, { first, last }) => n + last - first + 1, 0);
  }

  /**
   * The first `count` indexes below `completions` that are neither in this set nor in
   * `taken` (`firstPendingIndexes`), ascending.
   */
  firstMissing(count: number, completions: number, taken: ReadonlySet<number>): number[] {
    const result: number[] = [];
    for (let i = 0; i < completions && result.length < count; i++) {
      if (!this.has(i) && !taken.has(i)) result.push(i);
    }
    return result;
  }

  /** The set as `status.completedIndexes` writes it: `1,3-5,7` (`""` when empty). */
  toString(): string {
    return this.#intervals
      .map(({ first, last }) => (first === last ? `${first}` : `${first}-${last}`))
      .join(",");
  }
}
