import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  type Logger,
  isNotFound,
  isServiceUnavailable,
  isTooManyRequests,
  isUnauthorized,
  StatusError,
  type CredentialSource,
  type RequestCredentials,
  type RestConfig,
  RESTClient,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

interface LogEntry {
  readonly level: string;
  readonly message: string;
}

function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const add = (level: string) => (message: string) => {
    entries.push({ level, message });
  };
  return {
    entries,
    debug: add("debug"),
    info: add("info"),
    warn: add("warn"),
    error: add("error"),
  };
}

/** A credential source with a fixed token that counts `invalidate()` calls. */
class TokenCredentials implements CredentialSource {
  readonly kind = "token" as const;
  invalidations = 0;
  constructor(private readonly token: string) {}
  get(): Promise<RequestCredentials> {
    return Promise.resolve({ headers: { Authorization: `Bearer ${this.token}` } });
  }
  invalidate(): void {
    this.invalidations++;
  }
}

/** A credential source that presents a client certificate (as an exec plugin may). */
class CertificateCredentials implements CredentialSource {
  readonly kind = "exec" as const;
  constructor(private readonly certificate: { certPem: string; keyPem: string }) {}
  get(): Promise<RequestCredentials> {
    return Promise.resolve({ headers: {}, clientCertificate: this.certificate });
  }
  invalidate(): void {}
}

interface ConfigMap {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
}

interface ConfigMapList {
  items: ConfigMap[];
  metadata: { resourceVersion: string };
}

let server: ApiServer;
let certServer: ApiServer;

beforeAll(async () => {
  [server, certServer] = await Promise.all([
    ApiServer.start({ tls: true, auth: { tokens: { t: "alice" } } }),
    ApiServer.start({ tls: true, auth: { clientCertificates: true } }),
  ]);
});

afterAll(async () => {
  await Promise.all([server.stop(), certServer.stop()]);
});

function tokenConfig(token = "t", overrides: Partial<RestConfig> = {}): RestConfig {
  return {
    host: server.url,
    tls: { caPem: server.caPem ?? "" },
    credentials: new TokenCredentials(token),
    qps: 5,
    burst: 10,
    ...overrides,
  };
}

/** CRUD of one ConfigMap through the builder. */
async function exerciseCrud(client: RESTClient, name: string): Promise<void> {
  const cms = () => client.get().version("v1").namespace("default").resource("configmaps");
  const created = await client
    .post()
    .version("v1")
    .namespace("default")
    .resource("configmaps")
    .body({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, labels: { app: "crud" } },
      data: { a: "1" },
    })
    .do<ConfigMap>();
  expect(created.statusCode).toBe(201);
  expect(created.body.metadata.name).toBe(name);

  const got = await cms().name(name).do<ConfigMap>();
  expect(got.statusCode).toBe(200);
  expect(got.body.data).toEqual({ a: "1" });

  const listed = await cms().listOptions({ labelSelector: "app=crud" }).do<ConfigMapList>();
  expect(listed.body.items.map((i) => i.metadata.name)).toContain(name);

  const patched = await client
    .patch("application/merge-patch+json")
    .version("v1")
    .namespace("default")
    .resource("configmaps")
    .name(name)
    .body({ data: { b: "2" } })
    .do<ConfigMap>();
  expect(patched.body.data).toEqual({ a: "1", b: "2" });

  const replaced = await client
    .put()
    .version("v1")
    .namespace("default")
    .resource("configmaps")
    .name(name)
    .body({ ...patched.body, data: { c: "3" } })
    .do<ConfigMap>();
  expect(replaced.body.data).toEqual({ c: "3" });

  await client
    .delete()
    .version("v1")
    .namespace("default")
    .resource("configmaps")
    .name(name)
    .deleteOptions({ propagationPolicy: "Background" })
    .do();
  const missing = await cms()
    .name(name)
    .do()
    .catch((e: unknown) => e);
  expect(isNotFound(missing)).toBe(true);
}

describe("RESTClient over HTTPS", () => {
  it("gets, lists, creates, patches, updates and deletes with token auth", async () => {
    await exerciseCrud(new RESTClient(tokenConfig(), { logger: recordingLogger() }), "crud-token");
  });

  it("does the same with a client certificate from the config", async () => {
    const cert = await certServer.issueClientCertificate("bob", ["devs"]);
    const config: RestConfig = {
      host: certServer.url,
      tls: { caPem: certServer.caPem ?? "", certPem: cert.certPem, keyPem: cert.keyPem },
      credentials: {
        kind: "none",
        get: () => Promise.resolve({ headers: {} }),
        invalidate: () => undefined,
      },
      qps: 5,
      burst: 10,
    };
    await exerciseCrud(new RESTClient(config, { logger: recordingLogger() }), "crud-cert");
  });

  it("uses a client certificate returned by the credential source instead of the static one", async () => {
    const cert = await certServer.issueClientCertificate("carol");
    const config: RestConfig = {
      host: certServer.url,
      tls: { caPem: certServer.caPem ?? "" },
      credentials: new CertificateCredentials(cert),
      qps: 5,
      burst: 10,
    };
    const res = await new RESTClient(config, { logger: recordingLogger() })
      .get()
      .version("v1")
      .resource("namespaces")
      .name("default")
      .do<{ metadata: { name: string } }>();
    expect(res.body.metadata.name).toBe("default");
  });

  it("rejects a wrong token with an Unauthorized StatusError and invalidates the credentials", async () => {
    const config = tokenConfig("wrong");
    const err = await new RESTClient(config, { logger: recordingLogger() })
      .get()
      .version("v1")
      .resource("namespaces")
      .do()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(isUnauthorized(err)).toBe(true);
    expect((err as StatusError).code).toBe(401);
    expect((config.credentials as TokenCredentials).invalidations).toBe(1);
  });

  it("decodes a 404 Status into a typed NotFound error", async () => {
    const err = await new RESTClient(tokenConfig(), { logger: recordingLogger() })
      .get()
      .version("v1")
      .namespace("default")
      .resource("configmaps")
      .name("does-not-exist")
      .do()
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe('configmaps "does-not-exist" not found');
    expect((err as StatusError).status.details?.name).toBe("does-not-exist");
  });

  it("turns the plain-text 404 of an unknown path into a NotFound with client-go's message", async () => {
    const err = await new RESTClient(tokenConfig(), { logger: recordingLogger() })
      .get()
      .absPath("/no/such/path")
      .do()
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe("the server could not find the requested resource");
    expect((err as StatusError).status.details?.causes?.[0]?.message).toBe("404 page not found");
  });

  it("returns raw bytes with doRaw()", async () => {
    const res = await new RESTClient(tokenConfig(), { logger: recordingLogger() })
      .get()
      .absPath("/version")
      .doRaw();
    expect(res.body).toBeInstanceOf(Uint8Array);
    expect(JSON.parse(new TextDecoder().decode(res.body))).toMatchObject({ major: "1" });
  });
});

describe("Retry-After retries", () => {
  it("retries 429 twice on the clock, then succeeds, logging each retry at debug level", async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    const client = new RESTClient(tokenConfig(), { clock, logger });
    server.faults.failNext(2, { code: 429, retryAfterSeconds: 1 });
    const pending = client.get().version("v1").resource("namespaces").name("default").do();
    for (let i = 0; i < 2; i++) {
      await clock.waitForTimers(1);
      expect(clock.nextTimerAt()).toBe(clock.now() + 1000);
      clock.advance(1000);
    }
    const res = await pending;
    expect(res.statusCode).toBe(200);
    const retries = logger.entries.filter((e) => e.message.startsWith("Got a Retry-After 1s"));
    expect(retries.map((e) => [e.level, e.message.slice(0, 40)])).toEqual([
      ["debug", "Got a Retry-After 1s response for attemp"],
      ["debug", "Got a Retry-After 1s response for attemp"],
    ]);
  });

  it("does not retry a 503 without Retry-After", async () => {
    const client = new RESTClient(tokenConfig(), {
      clock: new FakeClock(),
      logger: recordingLogger(),
    });
    server.faults.failNext(1, { code: 503 });
    const err = await client
      .get()
      .version("v1")
      .resource("namespaces")
      .do()
      .catch((e: unknown) => e);
    expect(isServiceUnavailable(err)).toBe(true);
    // The single failure was consumed by a single attempt: the next request succeeds.
    await expect(client.get().version("v1").resource("namespaces").do()).resolves.toMatchObject({
      statusCode: 200,
    });
  });

  it("gives up after maxRetries with the last error, carrying the previous attempt's", async () => {
    const clock = new FakeClock();
    const client = new RESTClient(tokenConfig(), { clock, logger: recordingLogger() });
    server.faults.failNext(3, { code: 429, retryAfterSeconds: 2 });
    const pending = client
      .get()
      .version("v1")
      .resource("namespaces")
      .maxRetries(1)
      .do()
      .catch((e: unknown) => e);
    await clock.waitForTimers(1);
    clock.advance(2000);
    const err = await pending;
    expect(isTooManyRequests(err)).toBe(true);
    expect((err as StatusError).retryAfterSeconds).toBe(2);
    expect((err as StatusError).cause).toBeInstanceOf(StatusError);
    server.faults.clear();
  });
});

describe("client-side rate limiting", () => {
  it("lets a burst through, then throttles on the clock and logs the wait", async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    const client = new RESTClient(tokenConfig("t", { qps: 1, burst: 2 }), { clock, logger });
    const get = () => client.get().version("v1").resource("namespaces").name("default").do();
    await Promise.all([get(), get()]);
    let thirdDone = false;
    const third = get().then((r) => {
      thirdDone = true;
      return r;
    });
    await clock.waitForTimers(1);
    expect(thirdDone).toBe(false);
    expect(clock.nextTimerAt()).toBe(clock.now() + 1000);
    clock.advance(1000);
    expect((await third).statusCode).toBe(200);
    expect(logger.entries.map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /^Waited for 1000ms due to client-side throttling, not priority and fairness, request: GET:https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default$/,
      ),
    );
  });

  it("does not throttle watches", async () => {
    const clock = new FakeClock();
    const client = new RESTClient(tokenConfig("t", { qps: 1, burst: 1 }), {
      clock,
      logger: recordingLogger(),
    });
    await client.get().version("v1").resource("namespaces").name("default").do();
    const watch = client
      .get()
      .version("v1")
      .resource("namespaces")
      .watch<{ metadata: { name: string } }>();
    for await (const ev of watch) {
      expect(ev.type).toBe("ADDED");
      break;
    }
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe("warning headers", () => {
  it("passes fieldValidation=Warn warnings to the handler and logs each distinct one once", async () => {
    const logger = recordingLogger();
    const client = new RESTClient(tokenConfig(), { logger });
    const create = (name: string) =>
      client
        .post()
        .version("v1")
        .namespace("default")
        .resource("configmaps")
        .createOptions({ fieldValidation: "Warn" })
        .body({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, bogus: true })
        .do();
    const first = await create("warn-a");
    expect(first.warnings).toEqual([{ code: 299, agent: "-", text: 'unknown field "bogus"' }]);
    const second = await create("warn-b");
    expect(second.warnings).toHaveLength(1);
    expect(logger.entries.filter((e) => e.level === "warn").map((e) => e.message)).toEqual([
      'Warning: unknown field "bogus"',
    ]);
  });

  it("uses a per-client warning handler", async () => {
    const seen: string[] = [];
    const client = new RESTClient(tokenConfig(), {
      logger: recordingLogger(),
      warningHandler: (w) => seen.push(w.text),
    });
    await client
      .post()
      .version("v1")
      .namespace("default")
      .resource("configmaps")
      .createOptions({ fieldValidation: "Warn" })
      .body({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "warn-c" }, extra: 1 })
      .do();
    expect(seen).toEqual(['unknown field "extra"']);
  });
});

describe("stream()", () => {
  it("follows a pod's log line by line and closes when the loop ends", async () => {
    const client = new RESTClient(tokenConfig(), { logger: recordingLogger() });
    await client
      .post()
      .version("v1")
      .namespace("default")
      .resource("pods")
      .body({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "logger" },
        spec: { containers: [{ name: "c", image: "busybox" }] },
      })
      .do();
    server.appendPodLog("default", "logger", "c", "one\ntwo\n");
    const lines: string[] = [];
    for await (const line of client
      .get()
      .version("v1")
      .namespace("default")
      .resource("pods")
      .name("logger")
      .subresource("log")
      .param("follow", true)
      .stream()) {
      lines.push(line);
      if (lines.length === 2) server.appendPodLog("default", "logger", "c", "three\n");
      if (lines.length === 3) break;
    }
    expect(lines).toEqual(["one", "two", "three"]);
  });

  it("throws a non-2xx answer from the first iteration", async () => {
    const client = new RESTClient(tokenConfig(), { logger: recordingLogger() });
    const lines = client
      .get()
      .version("v1")
      .namespace("default")
      .resource("pods")
      .name("nope")
      .subresource("log")
      .stream();
    await expect(lines[Symbol.asyncIterator]().next()).rejects.toSatisfy((e: unknown) =>
      isNotFound(e),
    );
  });
});
