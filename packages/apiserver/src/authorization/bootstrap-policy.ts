/**
 * The bootstrap RBAC policy an RBAC-enabled server starts with: the ClusterRoles and
 * ClusterRoleBindings of kube's `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`
 * that users and tests meet (cluster-admin bound to `system:masters`, system:discovery,
 * system:basic-user, system:public-info-viewer, system:service-account-issuer-discovery, and
 * the aggregated admin/edit/view with the roles aggregated into them). Each carries kube's
 * `kubernetes.io/bootstrapping: rbac-defaults` label and autoupdate annotation.
 *
 * Caveat: the controller roles (`system:controller:*`), node roles and the remaining
 * `system:*` roles are not created; the aggregate-to-edit/view rules list the resources the
 * embedded server serves.
 */
import type { JsonObject } from "kubekit";
import type { PolicyRule } from "./policy-rule-matching.js";

/** The RBAC API group. */
const RBAC = "rbac.authorization.k8s.io";
const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];

/** The label kube's aggregation selectors of admin, edit and view match. */
export const AGGREGATE_TO_LABEL_PREFIX = "rbac.authorization.k8s.io/aggregate-to-";

/** The rule `system:public-info-viewer` holds: what every user, anonymous included, may read. */
export const PUBLIC_INFO_RULE: PolicyRule = Object.freeze({
  verbs: ["get"],
  nonResourceURLs: ["/livez", "/readyz", "/healthz", "/version", "/version/"],
});

function resourceRule(
  verbs: readonly string[],
  apiGroups: readonly string[],
  resources: readonly string[],
): PolicyRule {
  return { verbs, apiGroups, resources };
}

function clusterRole(
  name: string,
  rules: readonly PolicyRule[] | undefined,
  options: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): JsonObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: {
      name,
      labels: { "kubernetes.io/bootstrapping": "rbac-defaults", ...options.labels },
      annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
    },
    ...(options.aggregateFrom === undefined
      ? {}
      : {
          aggregationRule: {
            clusterRoleSelectors: [
              { matchLabels: { [`${AGGREGATE_TO_LABEL_PREFIX}${options.aggregateFrom}`]: "true" } },
            ],
          },
        }),
    ...(rules === undefined ? {} : { rules: rules as unknown as JsonObject[] }),
  };
}

function aggregatedInto(target: string): Record<string, string> {
  return { [`${AGGREGATE_TO_LABEL_PREFIX}${target}`]: "true" };
}

/** The bootstrap ClusterRoles, in kube's order. */
export function bootstrapClusterRoles(): JsonObject[] {
  return [
    clusterRole("cluster-admin", [
      resourceRule(["*"], ["*"], ["*"]),
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ]),
    clusterRole("system:discovery", [
      {
        verbs: ["get"],
        nonResourceURLs: [
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
          "/healthz",
          "/livez",
          "/openapi",
          "/openapi/*",
          "/readyz",
          "/version",
          "/version/",
        ],
      },
    ]),
    clusterRole("system:basic-user", [
      resourceRule(
        ["create"],
        ["authorization.k8s.io"],
        ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
      ),
      resourceRule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [PUBLIC_INFO_RULE]),
    clusterRole("system:service-account-issuer-discovery", [
      {
        verbs: ["get"],
        nonResourceURLs: [
          "/.well-known/openid-configuration",
          "/.well-known/openid-configuration/",
          "/openid/v1/jwks",
          "/openid/v1/jwks/",
        ],
      },
    ]),
    clusterRole("admin", undefined, { aggregateFrom: "admin" }),
    clusterRole("edit", undefined, { aggregateFrom: "edit", labels: aggregatedInto("admin") }),
    clusterRole("view", undefined, { aggregateFrom: "view", labels: aggregatedInto("edit") }),
    clusterRole(
      "system:aggregate-to-admin",
      [
        resourceRule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
        resourceRule(READ_WRITE, [RBAC], ["rolebindings", "roles"]),
      ],
      { labels: aggregatedInto("admin") },
    ),
    clusterRole("system:aggregate-to-edit", aggregateToEditRules(), {
      labels: aggregatedInto("edit"),
    }),
    clusterRole("system:aggregate-to-view", aggregateToViewRules(), {
      labels: aggregatedInto("view"),
    }),
  ];
}

function aggregateToEditRules(): PolicyRule[] {
  return [
    resourceRule(
      READ,
      [""],
      ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
    ),
    resourceRule(["impersonate"], [""], ["serviceaccounts"]),
    resourceRule(
      WRITE,
      [""],
      ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"],
    ),
    resourceRule(["create"], [""], ["pods/eviction"]),
    resourceRule(
      WRITE,
      [""],
      [
        "configmaps",
        "endpoints",
        "events",
        "persistentvolumeclaims",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "secrets",
        "serviceaccounts",
        "services",
        "services/proxy",
      ],
    ),
    resourceRule(["create"], [""], ["serviceaccounts/token"]),
    resourceRule(
      WRITE,
      ["apps"],
      [
        "daemonsets",
        "deployments",
        "deployments/rollback",
        "deployments/scale",
        "replicasets",
        "replicasets/scale",
        "statefulsets",
        "statefulsets/scale",
      ],
    ),
    resourceRule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
    resourceRule(WRITE, ["batch"], ["cronjobs", "jobs"]),
    resourceRule(WRITE, ["policy"], ["poddisruptionbudgets"]),
    resourceRule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
    resourceRule(WRITE, ["coordination.k8s.io"], ["leases"]),
  ];
}

function aggregateToViewRules(): PolicyRule[] {
  return [
    resourceRule(
      READ,
      [""],
      [
        "configmaps",
        "endpoints",
        "persistentvolumeclaims",
        "persistentvolumeclaims/status",
        "pods",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "serviceaccounts",
        "services",
        "services/status",
      ],
    ),
    resourceRule(
      READ,
      [""],
      [
        "bindings",
        "events",
        "limitranges",
        "namespaces/status",
        "pods/log",
        "pods/status",
        "replicationcontrollers/status",
        "resourcequotas",
        "resourcequotas/status",
      ],
    ),
    resourceRule(READ, [""], ["namespaces"]),
    resourceRule(READ, ["discovery.k8s.io"], ["endpointslices"]),
    resourceRule(
      READ,
      ["apps"],
      [
        "controllerrevisions",
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/scale",
        "deployments/status",
        "replicasets",
        "replicasets/scale",
        "replicasets/status",
        "statefulsets",
        "statefulsets/scale",
        "statefulsets/status",
      ],
    ),
    resourceRule(
      READ,
      ["autoscaling"],
      ["horizontalpodautoscalers", "horizontalpodautoscalers/status"],
    ),
    resourceRule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
    resourceRule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
    resourceRule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
    resourceRule(READ, ["events.k8s.io"], ["events"]),
    resourceRule(READ, ["coordination.k8s.io"], ["leases"]),
  ];
}

function groupBinding(name: string, groups: readonly string[]): JsonObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: {
      name,
      labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
      annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
    },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name },
    subjects: groups.map((group) => ({ apiGroup: RBAC, kind: "Group", name: group })),
  };
}

/** The bootstrap ClusterRoleBindings: each binds the ClusterRole of its name to groups. */
export function bootstrapClusterRoleBindings(): JsonObject[] {
  return [
    groupBinding("cluster-admin", ["system:masters"]),
    groupBinding("system:discovery", ["system:authenticated"]),
    groupBinding("system:basic-user", ["system:authenticated"]),
    groupBinding("system:public-info-viewer", ["system:authenticated", "system:unauthenticated"]),
    groupBinding("system:service-account-issuer-discovery", ["system:serviceaccounts"]),
  ];
}
