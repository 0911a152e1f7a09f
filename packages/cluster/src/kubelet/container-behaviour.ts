import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { ClusterSettings } from "../cluster-context.js";
import { SIMULATION_ANNOTATIONS } from "../simulated-cluster-options.js";

/** How one simulated container behaves, from the pod's {@link SIMULATION_ANNOTATIONS}. */
export interface ContainerBehaviour {
  /**
   * The exit code once the container has run `runMs`, or undefined when it runs until
   * stopped (a long-running container of a `restartPolicy: Always` pod).
   */
  readonly exitCode: number | undefined;
  /** How long the container runs before it exits (ms on the cluster clock). */
  readonly runMs: number;
  /** Whether the container ever passes its readiness check. */
  readonly ready: boolean;
  /** How long the container takes to stop after SIGTERM (ms). */
  readonly terminationMs: number;
  /** What the container prints when it starts, from the `log` annotation (undefined: none given). */
  readonly log: string | undefined;
  /**
   * Whether the exit-code or run-ms annotation scripts the container's exit: then it exits
   * as they say even when its command runs (the command's output still goes to the log).
   */
  readonly scripted: boolean;
}

/** A non-negative integer annotation value, or undefined when absent or malformed. */
function nonNegativeInteger(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number.parseInt(value, 10);
}

/** An exit code annotation value (0..255 as a shell reports it), or undefined. */
function exitCodeOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*-?\d+\s*$/.test(value)) return undefined;
  const code = Number.parseInt(value, 10);
  return ((code % 256) + 256) % 256;
}

/**
 * The behaviour of `container` of `pod`: each annotation of {@link SIMULATION_ANNOTATIONS}
 * read as `<annotation>.<container name>`, else (for app containers) the pod-wide
 * `<annotation>`. Init containers read only their own annotations: they exit 0 at once unless
 * told otherwise, so a pod-wide exit code or run time describes the app containers (a Job's
 * work), not its setup.
 *
 * These are the defaults of a container whose command does not run as a process (see
 * `kubelet.ts`); with a process, only a given exit code or run time (`scripted`) overrides
 * what the process does.
 *
 * - exit code: given → the container exits with it; otherwise app containers of
 *   run-to-completion pods (`restartPolicy` Never or OnFailure) and init containers exit 0,
 *   and app containers of `Always` pods run until stopped;
 * - run time: the annotation, else the cluster's `completionMs` for app containers, 0 for
 *   init containers; malformed values are ignored.
 */
export function containerBehaviour(
  pod: Pod,
  container: Container,
  init: boolean,
  settings: ClusterSettings,
): ContainerBehaviour {
  const annotations = pod.metadata?.annotations ?? {};
  const read = (annotation: string): string | undefined =>
    annotations[`${annotation}.${container.name}`] ?? (init ? undefined : annotations[annotation]);
  const restartPolicy = pod.spec?.restartPolicy ?? "Always";
  const runsToCompletion = init || restartPolicy !== "Always";
  const exitCode = exitCodeOf(read(SIMULATION_ANNOTATIONS.exitCode));
  const runMs = nonNegativeInteger(read(SIMULATION_ANNOTATIONS.runMs));
  return {
    scripted: exitCode !== undefined || runMs !== undefined,
    exitCode: exitCode ?? (runsToCompletion ? 0 : undefined),
    runMs: runMs ?? (init ? 0 : settings.completionMs),
    ready: read(SIMULATION_ANNOTATIONS.ready)?.trim().toLowerCase() !== "false",
    terminationMs: nonNegativeInteger(read(SIMULATION_ANNOTATIONS.terminationMs)) ?? 0,
    log: read(SIMULATION_ANNOTATIONS.log),
  };
}
