import { it } from "vitest";
import { DiscoveryClient } from "kubekit";
import { useServer } from "../../../support/server-test-helpers.js";
const h = useServer({});
it("x", async () => {
  const d = new DiscoveryClient(h.server.kubeConfig().restConfig());
  const v1 = await d.serverResourcesForGroupVersion("v1");
  console.log(JSON.stringify(v1.resources.filter((r) => r.name.startsWith("pods")).map((r) => [r.name, r.verbs])));
});
