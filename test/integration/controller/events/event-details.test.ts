import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, EventRecorder, type LogFields, type Logger } from "kubekit";
import { useServer } from "../../../support/server-test-helpers.js";

/** events.k8s.io/v1 `action` and `related`, and echoing Events to the log, on the embedded server. */
describe("EventRecorder details on the embedded server", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("writes action and related to events.k8s.io/v1 and echoes the event to the log", async () => {
    const logged: { message: string; fields?: LogFields }[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (message, fields) => logged.push({ message, ...(fields ? { fields } : {}) }),
      warn: () => undefined,
      error: (message, fields) => logged.push({ message, ...(fields ? { fields } : {}) }),
    };
    const recorder = new EventRecorder({
      clientset: cs,
      component: "binder",
      logger,
      logEvents: true,
    });
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-0", namespace: "default" },
    };
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } };
    recorder.event(pod, {
      type: "Normal",
      reason: "Scheduled",
      action: "Binding",
      related: node,
      message: "bound web-0 to node-1",
    });
    await recorder.shutdown();
    const events = await cs.eventsV1.events("default").list();
    const event = events.items.find((e) => e.regarding?.name === "web-0");
    expect(event).toMatchObject({
      reason: "Scheduled",
      action: "Binding",
      related: { kind: "Node", name: "node-1" },
      note: "bound web-0 to node-1",
      reportingController: "binder",
    });
    expect(logged).toEqual([
      {
        message: "Event occurred",
        fields: {
          object: "default/web-0",
          kind: "Pod",
          apiVersion: "v1",
          type: "Normal",
          reason: "Scheduled",
          action: "Binding",
          message: "bound web-0 to node-1",
        },
      },
    ]);
  });
});
