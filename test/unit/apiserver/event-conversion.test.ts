import { describe, expect, it } from "vitest";
import {
  coreToEventsV1,
  eventsV1ToCore,
  validateEventsV1Create,
  validateEventsV1Update,
} from "../../../packages/apiserver/src/storage/event-conversion.js";
import { storageIdOf } from "../../../packages/apiserver/src/registry/registry.js";

const v1 = {
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "e", namespace: "ns" },
  eventTime: "2026-01-01T00:00:00.000000Z",
  series: { count: 2, lastObservedTime: "2026-01-01T00:01:00.000000Z" },
  reportingController: "kubekit.io/c",
  reportingInstance: "c-1",
  action: "Pulled",
  reason: "Pulled",
  regarding: { kind: "Pod", name: "p", namespace: "ns" },
  related: { kind: "Node", name: "n" },
  note: "pulled",
  type: "Normal",
  deprecatedSource: { component: "kubelet" },
  deprecatedFirstTimestamp: "2026-01-01T00:00:00Z",
  deprecatedLastTimestamp: "2026-01-01T00:01:00Z",
  deprecatedCount: 4,
};

describe("events.k8s.io/v1 ↔ core/v1 Event conversion", () => {
  it("renames the fields of pkg/apis/events/v1/conversion.go, in each API's field order", () => {
    const core = eventsV1ToCore(v1);
    expect(Object.keys(core)).toEqual([
      "apiVersion",
      "kind",
      "metadata",
      "involvedObject",
      "reason",
      "message",
      "source",
      "firstTimestamp",
      "lastTimestamp",
      "count",
      "type",
      "eventTime",
      "series",
      "action",
      "related",
      "reportingComponent",
      "reportingInstance",
    ]);
    expect(core).toMatchObject({
      apiVersion: "v1",
      involvedObject: v1.regarding,
      message: "pulled",
      source: { component: "kubelet" },
      firstTimestamp: v1.deprecatedFirstTimestamp,
      lastTimestamp: v1.deprecatedLastTimestamp,
      count: 4,
      reportingComponent: "kubekit.io/c",
      series: v1.series,
    });
    expect(coreToEventsV1(core)).toEqual(v1);
  });

  it("keeps fields it does not know", () => {
    expect(coreToEventsV1({ apiVersion: "v1", kind: "Event", extra: 1 })).toEqual({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      extra: 1,
    });
  });

  it("stores both APIs under the core/v1 storage id", () => {
    const info = { group: "events.k8s.io", version: "v1", plural: "events" };
    expect(storageIdOf(info as Parameters<typeof storageIdOf>[0])).toBe("/events");
    expect(storageIdOf({ ...info, group: "" } as Parameters<typeof storageIdOf>[0])).toBe(
      "/events",
    );
    expect(
      storageIdOf({ ...info, group: "apps", plural: "deployments" } as Parameters<
        typeof storageIdOf
      >[0]),
    ).toBe("apps/deployments");
  });

  it("validates an events.k8s.io/v1 create", () => {
    const { deprecatedSource: _s, deprecatedFirstTimestamp: _f, ...rest } = v1;
    const { deprecatedLastTimestamp: _l, deprecatedCount: _c, ...clean } = rest;
    expect(validateEventsV1Create(eventsV1ToCore(clean))).toEqual([]);
    const fields = validateEventsV1Create(eventsV1ToCore(v1)).map((e) => e.field);
    expect(fields).toEqual([
      "deprecatedFirstTimestamp",
      "deprecatedLastTimestamp",
      "deprecatedCount",
      "deprecatedSource",
    ]);
    const bad = validateEventsV1Create(
      eventsV1ToCore({
        ...clean,
        reportingController: "",
        reportingInstance: "x".repeat(129),
        reason: "",
        type: "Info",
        note: "n".repeat(1025),
        regarding: { kind: "Node", name: "n" },
      }),
    ).map((e) => `${e.type} ${e.field}`);
    expect(bad).toEqual([
      "FieldValueInvalid involvedObject.namespace",
      "FieldValueRequired reportingController",
      // IsQualifiedName("") reports both the empty name part and the format.
      "FieldValueInvalid reportingController",
      "FieldValueInvalid reportingController",
      "FieldValueInvalid reportingInstance",
      "FieldValueRequired reason",
      "FieldValueInvalid message",
      "FieldValueInvalid type",
    ]);
  });

  it("lets an events.k8s.io/v1 update change only the series", () => {
    const before = eventsV1ToCore(v1);
    expect(
      validateEventsV1Update(
        { ...before, series: { count: 9, lastObservedTime: "2026-01-01T00:09:00.000000Z" } },
        before,
      ),
    ).toEqual([]);
    expect(
      validateEventsV1Update({ ...before, reportingComponent: "other", message: "x" }, before).map(
        (e) => [e.field, e.detail],
      ),
    ).toEqual([
      ["message", "field is immutable"],
      ["reportingController", "field is immutable"],
    ]);
  });
});
