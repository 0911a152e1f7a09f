import { afterEach, describe, expect, it } from "vitest";
import { obj } from "./fixtures.js";
import { setupInformer, stopInformers, waitUntil } from "./shared-index-informer-harness.js";

afterEach(stopInformers);

describe("A handler's delivery loop", () => {
  it("yields to the event loop after a slice of synchronous callbacks, in order", async () => {
    const initial = Array.from({ length: 1000 }, (_, i) => obj(`ns/o${i}`, String(i + 1)));
    const { clock, informer, run } = setupInformer(initial);
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        seen.push(o.metadata.name ?? "");
        clock.advance(1); // each callback takes 1 ms of the informer's clock
      },
    });
    let deliveredWhenTheLoopRan: number | undefined;
    const registration = informer.addEventHandler({});
    void run();
    await waitUntil(() => seen.length > 0, "the first delivery");
    setImmediate(() => {
      deliveredWhenTheLoopRan = seen.length;
    });
    await waitUntil(() => seen.length === 1000 && registration.hasSynced(), "every add");
    expect(deliveredWhenTheLoopRan).toBeLessThan(1000);
    expect(seen).toEqual(initial.map((o) => o.metadata.name));
  });
});
