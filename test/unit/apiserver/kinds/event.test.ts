import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isDns1123Subdomain, isQualifiedName } from "kubekit/apimachinery";
import {
  coreEventStrategy,
  eventsApiEventStrategy,
  isZeroTime,
} from "../../../../packages/apiserver/src/kinds/event.js";
import { definedHooks, hooksOf, messages } from "./kind-test-helpers.js";

/** Events: legacyValidateEvent (`pkg/apis/core/validation/events.go`) on the stored core/v1 form. */

const event = hooksOf(coreEventStrategy);
const MISMATCH = (ns: string) =>
  `involvedObject.namespace: Invalid value: "${ns}": does not match event.namespace`;

function eventIn(namespace: string, fields: JsonObject): JsonObject {
  return { apiVersion: "v1", kind: "Event", metadata: { name: "e1", namespace }, ...fields };
}

const NEW_STYLE = {
  eventTime: "2025-01-02T03:04:05.000000Z",
  reportingComponent: "kubekit.io/controller",
  reportingInstance: "controller-1",
  action: "Scheduling",
  reason: "Scheduled",
};

describe("core/v1 Event validation without eventTime (the old style)", () => {
  it("requires the involved object's namespace to be the Event's, or empty in default", () => {
    expect(
      event.validateCreate(eventIn("team", { involvedObject: { namespace: "team" } })),
    ).toEqual([]);
    expect(event.validateCreate(eventIn("default", { involvedObject: {} }))).toEqual([]);
    expect(
      messages(event.validateCreate(eventIn("team", { involvedObject: { namespace: "other" } }))),
    ).toEqual([MISMATCH("other")]);
    expect(messages(event.validateCreate(eventIn("team", { involvedObject: {} })))).toEqual([
      MISMATCH(""),
    ]);
  });

  it("requires nothing of the reporting fields", () => {
    expect(
      event.validateCreate(eventIn("team", { involvedObject: { namespace: "team" }, reason: "" })),
    ).toEqual([]);
  });
});

describe("core/v1 Event validation with eventTime (the new style)", () => {
  it("accepts a complete Event, and an empty involved namespace in default and kube-system", () => {
    expect(
      event.validateCreate(
        eventIn("team", { ...NEW_STYLE, involvedObject: { namespace: "team" } }),
      ),
    ).toEqual([]);
    expect(
      event.validateCreate(eventIn("kube-system", { ...NEW_STYLE, involvedObject: {} })),
    ).toEqual([]);
    expect(
      messages(event.validateCreate(eventIn("team", { ...NEW_STYLE, involvedObject: {} }))),
    ).toEqual([MISMATCH("")]);
  });

  it("requires the reporting controller (a qualified name), instance, action and reason", () => {
    expect(
      messages(
        event.validateCreate(
          eventIn("team", {
            eventTime: NEW_STYLE.eventTime,
            involvedObject: { namespace: "team" },
          }),
        ),
      ),
    ).toEqual([
      "reportingController: Required value",
      ...isQualifiedName("").map((m) => `reportingController: Invalid value: "": ${m}`),
      "reportingInstance: Required value",
      "action: Required value",
      "reason: Required value",
    ]);
  });

  it("limits instance, action and reason to 128 characters and the message to 1024", () => {
    const long = "x".repeat(129);
    expect(
      messages(
        event.validateCreate(
          eventIn("team", {
            ...NEW_STYLE,
            involvedObject: { namespace: "team" },
            reportingInstance: long,
            action: long,
            reason: long,
            message: "m".repeat(1025),
          }),
        ),
      ),
    ).toEqual([
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
  });
});

describe("core/v1 Event, both styles", () => {
  it("checks the namespace is a DNS-1123 subdomain", () => {
    expect(
      messages(
        event.validateCreate(eventIn("Bad_NS", { involvedObject: { namespace: "Bad_NS" } })),
      ),
    ).toEqual(isDns1123Subdomain("Bad_NS").map((m) => `namespace: Invalid value: "Bad_NS": ${m}`));
  });

  it("applies the same rules to an update", () => {
    const ok = eventIn("team", { involvedObject: { namespace: "team" }, count: 2 });
    expect(
      event.validateUpdate(ok, eventIn("team", { involvedObject: { namespace: "team" } })),
    ).toEqual([]);
    expect(
      messages(event.validateUpdate(eventIn("team", { involvedObject: { namespace: "x" } }), ok)),
    ).toEqual([MISMATCH("x")]);
  });

  it("reads absent, null and empty times as unset", () => {
    expect([undefined, null, ""].every(isZeroTime)).toBe(true);
    expect(isZeroTime(NEW_STYLE.eventTime)).toBe(false);
  });
});

describe("Event policies and printers", () => {
  it("core/v1 Events are created on update and selected by kube's event fields", () => {
    expect(coreEventStrategy.policy?.allowCreateOnUpdate).toBe(true);
    expect(Object.keys(coreEventStrategy.policy?.selectableFields ?? {}).sort()).toEqual([
      "involvedObject.apiVersion",
      "involvedObject.fieldPath",
      "involvedObject.kind",
      "involvedObject.name",
      "involvedObject.namespace",
      "involvedObject.resourceVersion",
      "involvedObject.uid",
      "reason",
      "reportingComponent",
      "source",
      "type",
    ]);
  });

  it("events.k8s.io/v1 has only its printer here: its writes go through the core/v1 strategy", () => {
    expect(definedHooks(eventsApiEventStrategy)).toEqual([]);
    expect(eventsApiEventStrategy.policy).toBeUndefined();
    const columns = [
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject",
      "Source",
      "Message",
      "First Seen",
      "Count",
      "Name",
    ];
    expect(eventsApiEventStrategy.printer?.columns.map((c) => c.name)).toEqual(columns);
    expect(coreEventStrategy.printer?.columns.map((c) => c.name)).toEqual(columns);
  });
});
