import type { Clock } from "kubekit";
import type { AccessControl } from "../authorization/access-control.js";
import type { ContainerHandlers } from "../containers/container-handlers.js";
import type { PodLogs } from "../containers/pod-logs.js";
import type { ResourceRegistry } from "../registry/registry.js";
import type { Storage } from "../storage/storage.js";
import type { ServerBehaviour } from "./server-behaviour.js";

/** Shared state of one embedded server instance, handed to every verb and controller. */
export interface ServerContext {
  readonly storage: Storage;
  readonly registry: ResourceRegistry;
  readonly clock: Clock;
  readonly behaviour: ServerBehaviour;
  /** Container logs served by `pods/log`. */
  readonly podLogs: PodLogs;
  /** What runs inside simulated containers: exec and port-forward handlers. */
  readonly containers: ContainerHandlers;
  /**
   * Authentication, authorization and service-account tokens (absent in contexts built by
   * hand: no authentication, AlwaysAllow, no tokens).
   */
  readonly access?: AccessControl;
}
