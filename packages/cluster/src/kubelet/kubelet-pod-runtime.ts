import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { formatGoDuration } from "kubekit/apimachinery";
import type { ClusterSettings } from "../cluster-context.js";
import { containerBehaviour, type ContainerBehaviour } from "./container-behaviour.js";
import { simulatedContainerId } from "./container-image.js";

/**
 * The kubelet's crash-loop back-off (`pkg/kubelet/kubelet.go` initialBackOff/maxBackOff
 * MaxContainerBackOff): 10 s doubling to 300 s, measured from the container's exit, forgotten
 * once a restart happens more than twice the maximum after the previous one
 * (`staging/src/k8s.io/client-go/util/flowcontrol/backoff.go`).
 */
export const CRASH_LOOP_BACK_OFF = Object.freeze({ initialMs: 10_000, maxMs: 300_000 });

/** The exit code of a container killed (SIGKILL) at the end of its grace period. */
const KILLED_EXIT_CODE = 137;

/** A container's state, as `containerStatuses[].state` shows it, with times in ms. */
export type SimulatedContainerState =
  | { readonly kind: "waiting"; readonly reason: string; readonly message?: string }
  | { readonly kind: "running"; readonly startedAtMs: number }
  | {
      readonly kind: "terminated";
      readonly exitCode: number;
      readonly reason: string;
      readonly startedAtMs: number;
      readonly finishedAtMs: number;
      readonly containerId: string;
    };

/** What the runtime knows of one container of the pod. */
export interface SimulatedContainer {
  readonly spec: Container;
  /** Whether it is an init container. */
  readonly init: boolean;
  /** Whether it is an ephemeral container (started once the pod runs; never restarted). */
  readonly ephemeral: boolean;
  readonly behaviour: ContainerBehaviour;
  state: SimulatedContainerState;
  /** The previous instance's termination, once the container restarted or waits to. */
  lastTerminated: Extract<SimulatedContainerState, { kind: "terminated" }> | undefined;
  restartCount: number;
  /** The ID of the current (or last) instance, once one was created. */
  containerId: string | undefined;
  /** When the running instance exits by itself (Infinity: it runs until stopped, or until its process exits). */
  exitAtMs: number;
  /** The exit status its process reported ({@link PodRuntime.processExited}), if it ended. */
  processExitCode: number | undefined;
  /** When the running instance passes its readiness check (Infinity: never). */
  readyAtMs: number;
  /** When a container waiting in crash-loop back-off starts again. */
  restartAtMs: number | undefined;
  /** The current crash-loop back-off, once the container restarted (client-go Backoff's entry). */
  backOffMs: number | undefined;
  /** When {@link backOffMs} was last raised. */
  backOffUpdatedMs: number | undefined;
  /** When a container being stopped exits, and whether it is killed then (grace period over). */
  stop: { readonly atMs: number; readonly killed: boolean } | undefined;
}

/**
 * An ephemeral container's behaviour: its own annotations only (read as an init container's),
 * but without a scripted exit it runs until its process exits or the pod stops.
 */
function ephemeralBehaviour(behaviour: ContainerBehaviour): ContainerBehaviour {
  return behaviour.scripted ? behaviour : { ...behaviour, exitCode: undefined };
}

/** What the runtime reports as it goes, for Events and container logs. */
export interface PodRuntimeHooks {
  /** A container instance was created and started at `atMs`. */
  started(container: SimulatedContainer, atMs: number): void;
  /**
   * Starts the instance's process (after {@link started}); true when one runs, whose exit
   * the kubelet reports through {@link PodRuntime.processExited}. Without it, or when it gives
   * false, the container behaves as its {@link ContainerBehaviour} defaults say.
   */
  run?(container: SimulatedContainer, atMs: number): boolean;
  /** The instance stopped (its process, if one still runs, must end). */
  exited?(container: SimulatedContainer): void;
  /** A failed container waits in crash-loop back-off. */
  backOff(container: SimulatedContainer): void;
  /** The kubelet stops a running container (graceful deletion). */
  killing(container: SimulatedContainer): void;
}

/** Where the pod is in its life. */
type Stage = "creating" | "initializing" | "running";

/**
 * The simulated container runtime of one pod on one node (the part of
 * `pkg/kubelet/kuberuntime` the status is read from): a deterministic state machine on the
 * cluster clock. After `containerStartMs` the init containers run to completion one after the
 * other, then the app containers start together; each exits when its
 * `ContainerBehaviour` says, and is restarted by the pod's `restartPolicy` with the
 * crash-loop back-off; graceful deletion stops the running containers.
 *
 * {@link advance} applies every transition due up to a time, in time order, reporting them
 * through {@link PodRuntimeHooks}, and tells when the next one is due, so the kubelet wakes
 * exactly then. The state is the truth; the pod's status is a projection of it.
 */
export class PodRuntime {
  /** The pod's UID: a pod recreated under the same name gets a new runtime. */
  readonly uid: string;
  /** `status.startTime`: when the kubelet accepted the pod. */
  readonly startTimeMs: number;
  readonly podIp: string;
  readonly restartPolicy: string;
  readonly initContainers: readonly SimulatedContainer[];
  readonly containers: readonly SimulatedContainer[];
  /** The ephemeral containers added so far (`kubectl debug`), in the order they were added. */
  readonly ephemeralContainers: SimulatedContainer[] = [];
  readonly #podName: string;
  readonly #settings: ClusterSettings;
  readonly #readinessDelayMs: number;
  readonly #createAtMs: number;
  #stage: Stage = "creating";
  #initIndex = 0;
  /** An init container failed under `restartPolicy: Never`: the pod failed. */
  #initFailed = false;
  /** Graceful deletion began; its deadline (the pod's deletionTimestamp). */
  #terminating: { readonly deadlineMs: number } | undefined;

  constructor(pod: Pod, podIp: string, nowMs: number, settings: ClusterSettings) {
    this.uid = pod.metadata?.uid ?? "";
    this.#podName = `${pod.metadata?.name}_${pod.metadata?.namespace}(${this.uid})`;
    this.podIp = podIp;
    this.startTimeMs = nowMs;
    this.restartPolicy = pod.spec?.restartPolicy ?? "Always";
    this.#readinessDelayMs = settings.readinessDelayMs;
    this.#settings = settings;
    this.#createAtMs = nowMs + settings.containerStartMs;
    const hasInit = (pod.spec?.initContainers ?? []).length > 0;
    const make = (spec: Container, init: boolean): SimulatedContainer => ({
      spec,
      init,
      ephemeral: false,
      behaviour: containerBehaviour(pod, spec, init, settings),
      state: { kind: "waiting", reason: init || hasInit ? "PodInitializing" : "ContainerCreating" },
      lastTerminated: undefined,
      restartCount: 0,
      containerId: undefined,
      exitAtMs: Infinity,
      processExitCode: undefined,
      readyAtMs: Infinity,
      restartAtMs: undefined,
      backOffMs: undefined,
      backOffUpdatedMs: undefined,
      stop: undefined,
    });
    this.initContainers = (pod.spec?.initContainers ?? []).map((c) => make(c, true));
    this.containers = (pod.spec?.containers ?? []).map((c) => make(c, false));
  }

  /** Whether every init container has completed. */
  get initialized(): boolean {
    return this.#stage === "running";
  }

  /** Whether an init container failed for good (`restartPolicy: Never`). */
  get initFailed(): boolean {
    return this.#initFailed;
  }

  /** Whether graceful deletion has begun. */
  get terminating(): boolean {
    return this.#terminating !== undefined;
  }

  /** Whether no container runs and none will start again: the pod is done. */
  get finished(): boolean {
    const all = this.#all();
    if (all.some((c) => c.state.kind === "running")) return false;
    if (this.#terminating !== undefined || this.#initFailed) return true;
    if (this.#stage !== "running") return false;
    return this.containers.every((c) => c.state.kind === "terminated");
  }

  /**
   * Begins (or, with an earlier deadline, shortens) graceful deletion at `nowMs`: every
   * running container gets SIGTERM (reported through `hooks.killing`) and exits after its
   * `terminationMs`, or is killed (exit 137) at `deadlineMs`; nothing starts or restarts
   * any more.
   */
  beginTermination(nowMs: number, deadlineMs: number, hooks: PodRuntimeHooks): void {
    if (this.#terminating !== undefined && this.#terminating.deadlineMs <= deadlineMs) return;
    this.#terminating = { deadlineMs };
    for (const c of this.#all()) {
      if (c.state.kind !== "running") continue;
      const wanted = nowMs + c.behaviour.terminationMs;
      if (c.stop === undefined) hooks.killing(c);
      const atMs = Math.max(nowMs, Math.min(wanted, deadlineMs, c.stop?.atMs ?? Infinity));
      c.stop = { atMs, killed: wanted > deadlineMs };
    }
  }

  /**
   * Brings the runtime up to `nowMs` for `pod` as the API server holds it (the kubelet's pod
   * worker): a deletion timestamp begins (or shortens) graceful deletion, with the timestamp as
   * its deadline, then every due transition is applied. Returns when the next one is due, as
   * {@link advance} does.
   */
  sync(pod: Pod, nowMs: number, hooks: PodRuntimeHooks): number | undefined {
    const deletionTimestamp = pod.metadata?.deletionTimestamp;
    if (deletionTimestamp !== undefined) {
      this.beginTermination(nowMs, Date.parse(deletionTimestamp), hooks);
    }
    this.#addEphemeral(pod, nowMs, hooks);
    return this.advance(nowMs, hooks);
  }

  /**
   * The process of the instance `containerId` exited with `exitCode` at `atMs`: the container
   * terminates then (at the next {@link advance}), unless the simulation annotations script
   * its exit, or it is being stopped anyway. Reports for other instances are ignored.
   */
  processExited(containerId: string, exitCode: number, atMs: number): void {
    const c = this.#all().find((x) => x.containerId === containerId);
    if (c === undefined || c.state.kind !== "running" || c.behaviour.scripted) return;
    c.processExitCode = exitCode;
    c.exitAtMs = Math.max(atMs, c.state.startedAtMs);
  }

  /**
   * Adds the ephemeral containers of `pod` the runtime does not know yet; they start at once
   * when the pod runs (or when it starts running), never while it terminates.
   */
  #addEphemeral(pod: Pod, nowMs: number, hooks: PodRuntimeHooks): void {
    for (const spec of pod.spec?.ephemeralContainers ?? []) {
      if (this.ephemeralContainers.some((c) => c.spec.name === spec.name)) continue;
      const c: SimulatedContainer = {
        spec: spec as Container,
        init: false,
        ephemeral: true,
        behaviour: ephemeralBehaviour(
          containerBehaviour(pod, spec as Container, true, this.#settings),
        ),
        state: { kind: "waiting", reason: "ContainerCreating" },
        lastTerminated: undefined,
        restartCount: 0,
        containerId: undefined,
        exitAtMs: Infinity,
        processExitCode: undefined,
        readyAtMs: Infinity,
        restartAtMs: undefined,
        backOffMs: undefined,
        backOffUpdatedMs: undefined,
        stop: undefined,
      };
      this.ephemeralContainers.push(c);
      if (this.#stage === "running" && this.#terminating === undefined)
        this.#start(c, nowMs, hooks);
    }
  }

  /** Every container: init, app and ephemeral. */
  #all(): SimulatedContainer[] {
    return [...this.initContainers, ...this.containers, ...this.ephemeralContainers];
  }

  /**
   * Applies every transition due at or before `nowMs`, in time order, and returns when the
   * next one (a start, an exit, a restart, a container becoming ready) is due, or undefined
   * when nothing more will happen by itself.
   */
  advance(nowMs: number, hooks: PodRuntimeHooks): number | undefined {
    for (;;) {
      const due = this.#nextTransitionMs();
      if (due === undefined || due > nowMs || !this.#apply(due, hooks)) break;
    }
    const upcoming = [
      this.#nextTransitionMs(),
      ...this.containers
        .filter((c) => c.state.kind === "running" && c.readyAtMs > nowMs)
        .map((c) => c.readyAtMs),
    ].filter((t): t is number => t !== undefined && Number.isFinite(t));
    return upcoming.length > 0 ? Math.min(...upcoming) : undefined;
  }

  /** Whether `container` is ready at `nowMs` (init containers: once they completed). */
  isReady(container: SimulatedContainer, nowMs: number): boolean {
    if (container.ephemeral) return false;
    if (container.init)
      return container.state.kind === "terminated" && container.state.exitCode === 0;
    return (
      container.state.kind === "running" &&
      container.readyAtMs <= nowMs &&
      container.stop === undefined
    );
  }

  /** The time of the earliest pending transition (not only those due). */
  #nextTransitionMs(): number | undefined {
    const times: number[] = [];
    for (const c of this.#all()) {
      if (c.state.kind === "running") {
        times.push(c.exitAtMs);
        if (c.stop !== undefined) times.push(c.stop.atMs);
      } else if (c.restartAtMs !== undefined && this.#terminating === undefined) {
        times.push(c.restartAtMs);
      }
    }
    if (this.#stage === "creating" && this.#terminating === undefined && !this.#initFailed) {
      times.push(this.#createAtMs);
    }
    const finite = times.filter((t) => Number.isFinite(t));
    return finite.length > 0 ? Math.min(...finite) : undefined;
  }

  /** Applies one transition due at `atMs`; false when there was none. */
  #apply(atMs: number, hooks: PodRuntimeHooks): boolean {
    if (this.#stage === "creating" && this.#createAtMs <= atMs && this.#terminating === undefined) {
      this.#stage = "initializing";
      this.#startNextStage(atMs, hooks);
      return true;
    }
    for (const c of this.#all()) {
      if (c.state.kind === "running") {
        if (c.stop !== undefined && c.stop.atMs <= atMs) {
          this.#exit(c, atMs, c.stop.killed ? KILLED_EXIT_CODE : 0, hooks);
          return true;
        }
        if (c.exitAtMs <= atMs) {
          this.#exit(c, atMs, c.processExitCode ?? c.behaviour.exitCode ?? 0, hooks);
          return true;
        }
      } else if (
        c.restartAtMs !== undefined &&
        c.restartAtMs <= atMs &&
        this.#terminating === undefined
      ) {
        c.restartAtMs = undefined;
        this.#restart(c, atMs, hooks);
        return true;
      }
    }
    return false;
  }

  /** Starts the next init container, or, when they all completed, the app containers. */
  #startNextStage(atMs: number, hooks: PodRuntimeHooks): void {
    const next = this.initContainers[this.#initIndex];
    if (next !== undefined) {
      this.#start(next, atMs, hooks);
      return;
    }
    this.#stage = "running";
    for (const c of [...this.containers, ...this.ephemeralContainers]) this.#start(c, atMs, hooks);
  }

  #start(c: SimulatedContainer, atMs: number, hooks: PodRuntimeHooks): void {
    c.state = { kind: "running", startedAtMs: atMs };
    c.containerId = simulatedContainerId(this.uid, c.spec.name, c.restartCount);
    const probeDelayMs = (c.spec.readinessProbe?.initialDelaySeconds ?? 0) * 1000;
    c.readyAtMs = c.behaviour.ready ? atMs + this.#readinessDelayMs + probeDelayMs : Infinity;
    c.stop = undefined;
    c.processExitCode = undefined;
    hooks.started(c, atMs);
    // A running process decides when the container exits, unless the annotations script it.
    const runs = hooks.run?.(c, atMs) ?? false;
    c.exitAtMs =
      runs && !c.behaviour.scripted
        ? Infinity
        : c.behaviour.exitCode !== undefined
          ? atMs + c.behaviour.runMs
          : Infinity;
  }

  #exit(c: SimulatedContainer, atMs: number, exitCode: number, hooks: PodRuntimeHooks): void {
    if (c.state.kind !== "running") return;
    hooks.exited?.(c);
    c.state = {
      kind: "terminated",
      exitCode,
      reason: exitCode === 0 ? "Completed" : "Error",
      startedAtMs: c.state.startedAtMs,
      finishedAtMs: atMs,
      containerId: c.containerId ?? "",
    };
    c.exitAtMs = Infinity;
    c.readyAtMs = Infinity;
    c.stop = undefined;
    if (this.#terminating !== undefined || c.ephemeral) return;
    if (c.init) {
      if (exitCode === 0) {
        this.#initIndex++;
        this.#startNextStage(atMs, hooks);
      } else if (this.restartPolicy === "Never") this.#initFailed = true;
      else this.#scheduleRestart(c, atMs, hooks);
      return;
    }
    const restart =
      this.restartPolicy === "Always" || (this.restartPolicy === "OnFailure" && exitCode !== 0);
    if (restart) this.#scheduleRestart(c, atMs, hooks);
  }

  /**
   * Restarts an exited container now, or, while its back-off since the exit has not passed,
   * makes it wait in CrashLoopBackOff (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`
   * doBackOff).
   */
  #scheduleRestart(c: SimulatedContainer, exitedAtMs: number, hooks: PodRuntimeHooks): void {
    const backOffMs = this.#currentBackOff(c, exitedAtMs);
    if (backOffMs === undefined) {
      this.#restart(c, exitedAtMs, hooks);
      return;
    }
    if (c.state.kind === "terminated") c.lastTerminated = c.state;
    c.state = {
      kind: "waiting",
      reason: "CrashLoopBackOff",
      message: `back-off ${formatGoDuration(Math.round(backOffMs / 1000) * 1000)} restarting failed container=${c.spec.name} pod=${this.#podName}`,
    };
    c.restartAtMs = exitedAtMs + backOffMs;
    hooks.backOff(c);
  }

  /** The back-off in force for a container that exited at `exitedAtMs`, if any. */
  #currentBackOff(c: SimulatedContainer, exitedAtMs: number): number | undefined {
    if (c.backOffMs === undefined || c.backOffUpdatedMs === undefined) return undefined;
    if (exitedAtMs - c.backOffUpdatedMs > 2 * CRASH_LOOP_BACK_OFF.maxMs) return undefined;
    return c.backOffMs;
  }

  /** Starts a new instance of an exited container, raising its back-off (client-go Backoff.Next). */
  #restart(c: SimulatedContainer, atMs: number, hooks: PodRuntimeHooks): void {
    if (c.state.kind === "terminated") c.lastTerminated = c.state;
    const finishedAtMs = c.lastTerminated?.finishedAtMs ?? atMs;
    const current = this.#currentBackOff(c, finishedAtMs);
    c.backOffMs =
      current === undefined
        ? CRASH_LOOP_BACK_OFF.initialMs
        : Math.min(current * 2, CRASH_LOOP_BACK_OFF.maxMs);
    c.backOffUpdatedMs = atMs;
    c.restartCount++;
    this.#start(c, atMs, hooks);
  }
}
