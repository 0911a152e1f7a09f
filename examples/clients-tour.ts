/**
 * A tour of kubekit's clients against the embedded API server: kubeconfig → RestConfig,
 * the typed Clientset, watches, server-side apply, the DynamicClient, the MetadataClient,
 * discovery and the RESTMapper. Run: `node --import tsx examples/clients-tour.ts`.
 */
import {
  Clientset,
  DiscoveryClient,
  DynamicClient,
  KubeConfig,
  MetadataClient,
  RESTMapper,
  isConflict,
  isNotFound,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

/** Runs the tour, printing each step through `log`. */
export async function clientsTour(log: (line: string) => void = console.log): Promise<void> {
  const server = await ApiServer.start({ tls: true, auth: { tokens: { "tour-token": "admin" } } });
  try {
    // A KubeConfig: from files with kubectl's rules (`KubeConfig.load()`), or here from the server.
    await server.writeKubeconfig("/tmp/kubekit-tour.kubeconfig");
    const kc = await KubeConfig.load({ kubeconfig: "/tmp/kubekit-tour.kubeconfig" });
    const rc = kc.restConfig(); // host, TLS, credentials, qps 5 / burst 10
    log(`context ${kc.currentContext} → ${rc.host}`);

    // The typed Clientset: one client per group/version, kubernetes-types objects.
    const cs = new Clientset(rc);
    await cs.coreV1.namespaces().create({ metadata: { name: "tour" } });
    const cm = await cs.coreV1.configMaps("tour").create({
      metadata: { name: "settings", labels: { app: "web" } },
      data: { color: "blue" },
    });
    const list = await cs.coreV1.configMaps("tour").list({ labelSelector: "app=web" });
    log(
      `listed ${list.items.length} configmap(s) at resourceVersion ${list.metadata?.resourceVersion}`,
    );

    // Optimistic concurrency: a stale update is a typed Conflict.
    await cs.coreV1.configMaps("tour").update({ ...cm, data: { color: "green" } });
    try {
      await cs.coreV1.configMaps("tour").update({ ...cm, data: { color: "red" } });
    } catch (err) {
      log(`stale update rejected: conflict=${isConflict(err)}`);
    }

    // Watch from a resourceVersion: an async iterable; breaking out closes the connection.
    const watch = cs.coreV1
      .configMaps("tour")
      .watch({ resourceVersion: list.metadata?.resourceVersion });
    await cs.coreV1
      .configMaps("tour")
      .patch("settings", "application/merge-patch+json", { data: { size: "L" } });
    for await (const event of watch) {
      log(
        `watch: ${event.type} ${event.type === "ERROR" ? event.object.message : event.object.metadata?.name}`,
      );
      if (event.type === "MODIFIED" && event.object.data?.["size"] === "L") break;
    }

    // Server-side apply with a field manager.
    await cs.appsV1.deployments("tour").apply(
      {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
          },
        },
      },
      { fieldManager: "tour" },
    );
    const scale = await cs.appsV1.deployments("tour").getScale("web");
    log(`deployment web: ${scale.spec?.replicas} replicas, selector ${scale.status?.selector}`);

    // The DynamicClient: any resource by GroupVersionResource, unstructured objects.
    const dyn = new DynamicClient(rc);
    const deployments = await dyn
      .resource({ group: "apps", version: "v1", resource: "deployments" })
      .namespace("tour")
      .list();
    log(`dynamic: ${deployments.items.map((d) => `${d.kind}/${d.metadata.name}`).join(", ")}`);

    // The MetadataClient: PartialObjectMetadata only.
    const meta = await new MetadataClient(rc)
      .resource({ group: "", version: "v1", resource: "configmaps" })
      .namespace("tour")
      .get("settings");
    log(
      `metadata: ${meta.kind} ${meta.metadata.name} labels=${JSON.stringify(meta.metadata.labels)}`,
    );

    // Discovery and the RESTMapper: kinds ↔ resources, short names.
    const discovery = new DiscoveryClient(rc);
    log(`server ${(await discovery.serverVersion()).gitVersion}`);
    const mapper = new RESTMapper(discovery);
    const gvr = await mapper.resourceFor({ resource: "deploy" });
    log(`"deploy" is ${gvr.group}/${gvr.version} ${gvr.resource}`);

    await cs.coreV1.configMaps("tour").delete("settings");
    try {
      await cs.coreV1.configMaps("tour").get("settings");
    } catch (err) {
      log(`after delete: notFound=${isNotFound(err)}`);
    }
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  clientsTour().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
