import type { Runnable } from "kubekit";
import type { ClusterContext } from "./cluster-context.js";
import { csrSigningController } from "./certificates/csr-signing-controller.js";
import { cronJobController } from "./cron-job/cron-job-controller.js";
import { daemonSetController } from "./daemon-set/daemon-set-controller.js";
import { deploymentController } from "./deployment/deployment-controller.js";
import { disruptionController } from "./disruption/disruption-controller.js";
import { endpointSliceController } from "./endpoint-slice/endpoint-slice-controller.js";
import { jobController } from "./job/job-controller.js";
import { kubelet } from "./kubelet/kubelet.js";
import { replicaSetController } from "./replica-set/replica-set-controller.js";
import { scheduler } from "./scheduler/scheduler.js";
import { serviceAccountController } from "./service-account/service-account-controller.js";
import type { ClusterControllerName } from "./simulated-cluster-options.js";
import { statefulSetController } from "./stateful-set/stateful-set-controller.js";

/** Builds one component of the control plane from the cluster's context. */
export type ComponentFactory = (ctx: ClusterContext) => Runnable;

/** The components that always run: kube-scheduler and the kubelets of the simulated Nodes. */
export const CLUSTER_COMPONENTS: readonly ComponentFactory[] = [scheduler, kubelet];

/** kube-controller-manager's controllers, by the names its `--controllers` flag takes. */
export const CONTROLLER_MANAGER: Readonly<Record<ClusterControllerName, ComponentFactory>> = {
  replicaset: replicaSetController,
  deployment: deploymentController,
  statefulset: statefulSetController,
  daemonset: daemonSetController,
  job: jobController,
  cronjob: cronJobController,
  endpointslice: endpointSliceController,
  serviceaccount: serviceAccountController,
  disruption: disruptionController,
  csrsigning: csrSigningController,
};
