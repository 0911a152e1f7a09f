import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isDns1123Label } from "kubekit/apimachinery";
import {
  defaultImagePullPolicy,
  defaultPodSpec,
  defaultTemplateOf,
  validatePodSpec,
} from "../../../../packages/apiserver/src/kinds/pod-spec.js";
import { frozen, messages } from "./kind-test-helpers.js";

/**
 * The PodSpec rules every pod and pod template shares: SetDefaults_PodSpec and
 * SetDefaults_Container (`pkg/apis/core/v1/defaults.go`), ValidatePodSpec's container and
 * port rules (`pkg/apis/core/validation/validation.go`).
 */

const RANGE = "must be between 1 and 65535, inclusive";

function validated(spec: JsonObject, path = "spec", restartPolicies?: readonly string[]) {
  return messages(validatePodSpec(frozen(defaultPodSpec(frozen(spec))), path, restartPolicies));
}

describe("defaultImagePullPolicy (SetDefaults_Container)", () => {
  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["localhost:5000/nginx", "Always"],
    ["localhost:5000/nginx:1.2", "IfNotPresent"],
    ["nginx:1.27", "IfNotPresent"],
    ["nginx@sha256:abc", "IfNotPresent"],
    ["nginx:latest@sha256:abc", "Always"],
    ["", "IfNotPresent"],
  ])("%s → %s", (image, policy) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });
});

describe("defaultPodSpec (SetDefaults_PodSpec, SetDefaults_Container)", () => {
  it("sets the pod and container defaults kube-apiserver sets", () => {
    const spec = defaultPodSpec(
      frozen({
        containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 80 }] }],
        initContainers: [{ name: "init", image: "busybox:1.36" }],
      }),
    );
    expect(spec).toEqual({
      dnsPolicy: "ClusterFirst",
      restartPolicy: "Always",
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
      containers: [
        {
          name: "web",
          image: "nginx",
          ports: [{ containerPort: 80, protocol: "TCP" }],
          imagePullPolicy: "Always",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
        },
      ],
      initContainers: [
        {
          name: "init",
          image: "busybox:1.36",
          imagePullPolicy: "IfNotPresent",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
        },
      ],
    });
  });

  it("keeps values that are set, empty strings counting as unset", () => {
    const spec = defaultPodSpec(
      frozen({
        restartPolicy: "Never",
        dnsPolicy: "",
        terminationGracePeriodSeconds: 0,
        schedulerName: "custom",
        securityContext: { runAsUser: 1000 },
        containers: [
          {
            name: "c",
            image: "nginx",
            imagePullPolicy: "Never",
            terminationMessagePolicy: "FallbackToLogsOnError",
            ports: [{ containerPort: 53, protocol: "UDP" }],
          },
        ],
      }),
    );
    expect(spec).toMatchObject({
      restartPolicy: "Never",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 0,
      schedulerName: "custom",
      securityContext: { runAsUser: 1000 },
      containers: [
        {
          imagePullPolicy: "Never",
          terminationMessagePolicy: "FallbackToLogsOnError",
          ports: [{ containerPort: 53, protocol: "UDP" }],
        },
      ],
    });
  });

  it("defaults a workload's pod template and leaves a spec without one alone", () => {
    const spec = frozen({ replicas: 2, template: { spec: { containers: [] } } });
    expect(defaultTemplateOf(spec)).toMatchObject({
      replicas: 2,
      template: { spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst" } },
    });
    const bare = frozen({ replicas: 2 });
    expect(defaultTemplateOf(bare)).toBe(bare);
  });
});

describe("validatePodSpec (ValidatePodSpec)", () => {
  it("accepts a defaulted minimal spec", () => {
    expect(validated({ containers: [{ name: "web", image: "nginx" }] })).toEqual([]);
  });

  it("requires containers", () => {
    expect(validated({ containers: [] })).toEqual(["spec.containers: Required value"]);
    expect(validated({})).toEqual(["spec.containers: Required value"]);
  });

  it("checks container names (required, DNS-1123 label, unique across init and regular containers) and images", () => {
    expect(
      validated({
        initContainers: [{ name: "dup", image: "busybox" }],
        containers: [
          { name: "Bad_Name", image: "" },
          { image: "nginx" },
          { name: "dup", image: " nginx" },
        ],
      }),
    ).toEqual([
      ...isDns1123Label("Bad_Name").map(
        (m) => `spec.containers[0].name: Invalid value: "Bad_Name": ${m}`,
      ),
      "spec.containers[0].image: Required value",
      "spec.containers[1].name: Required value",
      'spec.containers[2].image: Invalid value: " nginx": must not have leading or trailing whitespace',
      'spec.initContainers[0].name: Duplicate value: "dup"',
    ]);
  });

  it("checks imagePullPolicy, restartPolicy and dnsPolicy against kube's supported values", () => {
    expect(
      validated({
        restartPolicy: "Sometimes",
        dnsPolicy: "Custom",
        containers: [{ name: "c", image: "nginx", imagePullPolicy: "Maybe" }],
      }),
    ).toEqual([
      'spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Custom": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it("narrows restartPolicy to what the caller allows, under the caller's path", () => {
    expect(
      validated(
        { restartPolicy: "Never", containers: [{ name: "c", image: "nginx" }] },
        "spec.template.spec",
        ["Always"],
      ),
    ).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it("checks container ports: number ranges, protocol, IANA names unique in the container", () => {
    expect(
      validated({
        containers: [
          {
            name: "c",
            image: "nginx",
            ports: [
              { containerPort: 0 },
              { containerPort: 70000, hostPort: -1, name: "http" },
              { containerPort: 80, protocol: "ICMP", name: "http" },
              { containerPort: 81, name: "Not_A_Name" },
            ],
          },
        ],
      }),
    ).toEqual([
      "spec.containers[0].ports[0].containerPort: Required value",
      `spec.containers[0].ports[1].containerPort: Invalid value: 70000: ${RANGE}`,
      `spec.containers[0].ports[1].hostPort: Invalid value: -1: ${RANGE}`,
      'spec.containers[0].ports[2].name: Duplicate value: "http"',
      'spec.containers[0].ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].ports[3].name: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });
});
