/**
 * The strategy of each served resource, by `group/plural`: the one place that maps resources
 * to their kind's rules (`kinds/*.ts`); every other resource, custom resources included,
 * gets {@link genericStrategy}.
 */
import { replicationControllerStrategy } from "./replication-controller.js";
import { horizontalPodAutoscalerStrategy } from "./horizontal-pod-autoscaler.js";
import { podDisruptionBudgetStrategy } from "./pod-disruption-budget.js";
import { ingressStrategy } from "./ingress.js";
import { networkPolicyStrategy } from "./network-policy.js";
import { serviceCidrStrategy } from "./service-cidr.js";
import { validatingAdmissionPolicyStrategy } from "./validating-admission-policy.js";
import { validatingWebhookConfigurationStrategy } from "./validating-webhook-configuration.js";
import { mutatingWebhookConfigurationStrategy } from "./mutating-webhook-configuration.js";
import { validatingAdmissionPolicyBindingStrategy } from "./validating-admission-policy-binding.js";
import { endpointsStrategy } from "./endpoints.js";
import { endpointSliceStrategy } from "./endpoint-slice.js";
import { persistentVolumeStrategy } from "./persistent-volume.js";
import { storageClassStrategy } from "./storage-class.js";
import { roleStrategy } from "./role.js";
import { clusterRoleStrategy } from "./cluster-role.js";
import { roleBindingStrategy } from "./role-binding.js";
import { clusterRoleBindingStrategy } from "./cluster-role-binding.js";
import { certificateSigningRequestStrategy } from "./certificate-signing-request.js";
import { configMapStrategy } from "./config-map.js";
import { cronJobStrategy } from "./cron-job.js";
import { CRD_STORAGE_ID, customResourceDefinitionStrategy } from "./custom-resource-definition.js";
import { daemonSetStrategy } from "./daemon-set.js";
import { DEPLOYMENT_STORAGE_ID, deploymentStrategy } from "./deployment.js";
import { coreEventStrategy, EVENT_STORAGE_ID, eventsApiEventStrategy } from "./event.js";
import { genericStrategy } from "./generic.js";
import { jobStrategy } from "./job.js";
import type { KindStrategy } from "./kind-strategy.js";
import { leaseStrategy } from "./lease.js";
import { NAMESPACE_STORAGE_ID, namespaceStrategy } from "./namespace.js";
import { NODE_STORAGE_ID, nodeStrategy } from "./node.js";
import { persistentVolumeClaimStrategy } from "./persistent-volume-claim.js";
import { POD_STORAGE_ID, podStrategy } from "./pod.js";
import { replicaSetStrategy } from "./replica-set.js";
import { secretStrategy } from "./secret.js";
import { SERVICE_ACCOUNT_STORAGE_ID, serviceAccountStrategy } from "./service-account.js";
import { serviceStrategy } from "./service.js";
import { statefulSetStrategy } from "./stateful-set.js";
import { selfSubjectReviewStrategy } from "./self-subject-review.js";
import { selfSubjectRulesReviewStrategy } from "./self-subject-rules-review.js";
import {
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  subjectAccessReviewStrategy,
} from "./subject-access-review.js";

/** By `group/plural`. */
const BY_RESOURCE: ReadonlyMap<string, KindStrategy> = new Map([
  [POD_STORAGE_ID, podStrategy],
  ["/services", serviceStrategy],
  ["/secrets", secretStrategy],
  ["/configmaps", configMapStrategy],
  [NAMESPACE_STORAGE_ID, namespaceStrategy],
  [SERVICE_ACCOUNT_STORAGE_ID, serviceAccountStrategy],
  [NODE_STORAGE_ID, nodeStrategy],
  ["/persistentvolumeclaims", persistentVolumeClaimStrategy],
  [EVENT_STORAGE_ID, coreEventStrategy],
  ["events.k8s.io/events", eventsApiEventStrategy],
  [DEPLOYMENT_STORAGE_ID, deploymentStrategy],
  ["apps/replicasets", replicaSetStrategy],
  ["apps/statefulsets", statefulSetStrategy],
  ["apps/daemonsets", daemonSetStrategy],
  ["batch/jobs", jobStrategy],
  ["batch/cronjobs", cronJobStrategy],
  ["coordination.k8s.io/leases", leaseStrategy],
  [CRD_STORAGE_ID, customResourceDefinitionStrategy],
  ["/replicationcontrollers", replicationControllerStrategy],
  ["autoscaling/horizontalpodautoscalers", horizontalPodAutoscalerStrategy],
  ["policy/poddisruptionbudgets", podDisruptionBudgetStrategy],
  ["networking.k8s.io/ingresses", ingressStrategy],
  ["networking.k8s.io/networkpolicies", networkPolicyStrategy],
  ["networking.k8s.io/servicecidrs", serviceCidrStrategy],
  ["admissionregistration.k8s.io/validatingadmissionpolicies", validatingAdmissionPolicyStrategy],
  [
    "admissionregistration.k8s.io/validatingwebhookconfigurations",
    validatingWebhookConfigurationStrategy,
  ],
  [
    "admissionregistration.k8s.io/mutatingwebhookconfigurations",
    mutatingWebhookConfigurationStrategy,
  ],
  [
    "admissionregistration.k8s.io/validatingadmissionpolicybindings",
    validatingAdmissionPolicyBindingStrategy,
  ],
  ["/endpoints", endpointsStrategy],
  ["discovery.k8s.io/endpointslices", endpointSliceStrategy],
  ["/persistentvolumes", persistentVolumeStrategy],
  ["storage.k8s.io/storageclasses", storageClassStrategy],
  ["rbac.authorization.k8s.io/roles", roleStrategy],
  ["rbac.authorization.k8s.io/clusterroles", clusterRoleStrategy],
  ["rbac.authorization.k8s.io/rolebindings", roleBindingStrategy],
  ["rbac.authorization.k8s.io/clusterrolebindings", clusterRoleBindingStrategy],
  ["certificates.k8s.io/certificatesigningrequests", certificateSigningRequestStrategy],
  ["authorization.k8s.io/selfsubjectaccessreviews", selfSubjectAccessReviewStrategy],
  ["authorization.k8s.io/subjectaccessreviews", subjectAccessReviewStrategy],
  ["authorization.k8s.io/localsubjectaccessreviews", localSubjectAccessReviewStrategy],
  ["authorization.k8s.io/selfsubjectrulesreviews", selfSubjectRulesReviewStrategy],
  ["authentication.k8s.io/selfsubjectreviews", selfSubjectReviewStrategy],
]);

/**
 * The strategy of the resource `group/plural` (any served version); custom resources
 * (`custom` true) always get the generic strategy, even when they reuse a built-in name.
 */
export function strategyFor(resource: {
  readonly group: string;
  readonly plural: string;
  readonly custom?: unknown;
}): KindStrategy {
  if (resource.custom) return genericStrategy;
  return BY_RESOURCE.get(`${resource.group}/${resource.plural}`) ?? genericStrategy;
}
