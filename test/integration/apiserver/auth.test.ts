import { execFile } from "node:child_process";
import { accessSync, constants as fsConstants } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { connect, type PeerCertificate } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ApiServer } from "@kubekit/apiserver";
import { createCertificateAuthority } from "../../../packages/apiserver/src/auth/certificates.js";
import { ApiClient, type RawResponse } from "../../support/api-client.js";
import { header } from "../../support/server-test-helpers.js";

/**
 * TLS and authentication of the embedded server over real HTTPS, against kube-apiserver as
 * `staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go` answers (a 401
 * Unauthorized Status), kubectl sending credentials only over TLS, plus the kubeconfig the server
 * hands out and, when kubectl is on PATH, kubectl itself against it.
 */

const TOKEN = "t0ken";
const WRONG_TOKEN = "wr0ng-t0ken-value";
const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];
const KUBECTL_TIMEOUT_MS = 20_000;

/** kube's 403 for system:anonymous, `forbidden: User "system:anonymous" cannot get path "/api"` and the like. */
function expectAnonymousForbidden(res: RawResponse, message: string): void {
  expect(res.status).toBe(403);
  expect(res.json).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, message });
}

function expectUnauthorized(res: RawResponse, secret?: string): void {
  expect(res.status).toBe(401);
  expect(header(res, "content-type")).toMatch(/^application\/json/);
  expect(res.json).toEqual({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Unauthorized",
    reason: "Unauthorized",
    code: 401,
  });
  if (secret !== undefined) {
    expect(res.text).not.toContain(secret);
    expect(JSON.stringify(res.headers)).not.toContain(secret);
  }
}

/** The absolute path of an executable named `name` on PATH, or undefined. */
function findOnPath(name: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

const KUBECTL = findOnPath("kubectl");
const SKIP_KUBECTL = "(skipped: kubectl is not on PATH)";

interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl with a scratch HOME and cache folder, bounded by a timeout; never rejects. */
function runKubectl(args: readonly string[], home: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL as string,
      [...args, "--cache-dir", join(home, "cache"), "--request-timeout", "10s"],
      {
        timeout: KUBECTL_TIMEOUT_MS,
        env: { PATH: process.env["PATH"] ?? "", HOME: home, KUBECONFIG: "" },
        cwd: home,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** The certificate the server presents and whether it verifies against `ca` for 127.0.0.1. */
function peerCertificate(
  port: number,
  ca: string | undefined,
): Promise<{ authorized: boolean; error: string | undefined; cert: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: "127.0.0.1",
      port,
      ...(ca !== undefined ? { ca } : {}),
      rejectUnauthorized: false,
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error("TLS handshake timed out")));
    socket.once("secureConnect", () => {
      const result = {
        authorized: socket.authorized,
        error: socket.authorizationError === null ? undefined : String(socket.authorizationError),
        cert: socket.getPeerCertificate(),
      };
      socket.end();
      resolve(result);
    });
    socket.once("error", reject);
  });
}

describe("TLS with bearer tokens", () => {
  let server: ApiServer;
  let scratch: string;

  beforeAll(async () => {
    server = await ApiServer.start({ tls: true, auth: { tokens: { [TOKEN]: "alice" } } });
    scratch = await mkdtemp(join(tmpdir(), "kubekit-auth-"));
  });

  afterAll(async () => {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("serves https on 127.0.0.1 with a certificate valid for 127.0.0.1 under server.caPem", async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.caPem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    const trusted = await peerCertificate(server.port, server.caPem);
    expect(trusted.error).toBeUndefined();
    expect(trusted.authorized).toBe(true);
    expect(trusted.cert.subjectaltname).toContain("IP Address:127.0.0.1");
    const untrusted = await peerCertificate(server.port, undefined);
    expect(untrusted.authorized).toBe(false);
  });

  it("a strict client that does not trust the CA cannot connect", async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpsRequest(
        { host: "127.0.0.1", port: server.port, path: "/version", agent: false, timeout: 5_000 },
        () => resolve("connected"),
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end();
    });
    expect(["SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"]).toContain(outcome);
  });

  it("the right bearer token is accepted", async () => {
    const client = ApiClient.for(server, { token: TOKEN });
    try {
      const res = await client.get("/api/v1/namespaces");
      expect(res.status).toBe(200);
      expect(res.json.kind).toBe("NamespaceList");
      const version = await client.get("/version");
      expect(version.status).toBe(200);
      expect(version.json.minor).toBe("32");
    } finally {
      await client.close();
    }
  });

  it("the token scheme is case-insensitive (Authorization: bearer …)", async () => {
    const client = ApiClient.for(server);
    try {
      const res = await client.get("/api/v1/namespaces/default", {
        headers: { authorization: `bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(res.json.metadata.name).toBe("default");
    } finally {
      await client.close();
    }
  });

  it("a wrong token gets a 401 Unauthorized Status that never echoes the token", async () => {
    const client = ApiClient.for(server, { token: WRONG_TOKEN });
    try {
      expectUnauthorized(await client.get("/api/v1/namespaces"), WRONG_TOKEN);
      expectUnauthorized(await client.get("/apis"), WRONG_TOKEN);
      expectUnauthorized(await client.get("/version"), WRONG_TOKEN);
      expectUnauthorized(
        await client.post("/api/v1/namespaces", {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: "never-created" },
        }),
        WRONG_TOKEN,
      );
    } finally {
      await client.close();
    }
    const admin = ApiClient.for(server, { token: TOKEN });
    try {
      expect((await admin.get("/api/v1/namespaces/never-created")).status).toBe(404);
    } finally {
      await admin.close();
    }
  });

  it("a request without a token (or with another scheme) is system:anonymous: 403 but /version", async () => {
    const client = ApiClient.for(server);
    try {
      const namespaces =
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope';
      expectAnonymousForbidden(await client.get("/api/v1/namespaces"), namespaces);
      expectAnonymousForbidden(
        await client.get("/api"),
        'forbidden: User "system:anonymous" cannot get path "/api"',
      );
      expectAnonymousForbidden(
        await client.get("/openapi/v3"),
        'forbidden: User "system:anonymous" cannot get path "/openapi/v3"',
      );
      const basic = await client.get("/api/v1/namespaces", {
        headers: { authorization: `Basic ${TOKEN}` },
      });
      expectAnonymousForbidden(basic, namespaces);
      expect(basic.text).not.toContain(TOKEN);
      expect((await client.get("/version")).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it("a watch with a wrong token is refused with 401 before streaming", async () => {
    const client = ApiClient.for(server, { token: WRONG_TOKEN });
    try {
      const watch = await client.watch("/api/v1/namespaces?watch=true");
      expect(watch.status).toBe(401);
      watch.close();
    } finally {
      await client.close();
    }
  });

  for (const path of ["/healthz", "/livez", "/readyz"]) {
    it(`${path} answers without credentials`, async () => {
      const client = ApiClient.for(server);
      try {
        const res = await client.get(path);
        expect(res.status).toBe(200);
        expect(res.text).toBe("ok");
      } finally {
        await client.close();
      }
    });
  }

  it("health endpoints answer GET and HEAD of their named checks only, and 401 a rejected token", async () => {
    const admin = ApiClient.for(server, { token: TOKEN });
    const anonymous = ApiClient.for(server);
    const wrong = ApiClient.for(server, { token: WRONG_TOKEN });
    try {
      for (const path of ["/healthz", "/livez", "/readyz", "/healthz/ping", "/readyz/etcd"]) {
        expect((await admin.get(path)).status, path).toBe(200);
        expect((await admin.request("HEAD", path)).status, path).toBe(200);
        for (const method of ["POST", "PUT", "DELETE", "PATCH"])
          expect((await admin.request(method, path)).status, `${method} ${path}`).toBe(405);
        expect((await wrong.get(path)).status, `wrong token ${path}`).toBe(401);
        expect((await wrong.request("POST", path)).status, `wrong token POST ${path}`).toBe(401);
      }
      for (const path of ["/healthz/anything", "/livez/x/y", "/readyz/nope"])
        expect((await admin.get(path)).status, path).toBe(404);
      // system:public-info-viewer: GET of the exact paths only (kube's bootstrap rule).
      for (const path of ["/healthz", "/livez", "/readyz", "/version", "/version/"])
        expect((await anonymous.get(path)).status, path).toBe(200);
      expect((await anonymous.request("HEAD", "/healthz")).status).toBe(403);
      expect((await anonymous.request("POST", "/healthz")).status).toBe(403);
      expectAnonymousForbidden(
        await anonymous.get("/healthz/ping"),
        'forbidden: User "system:anonymous" cannot get path "/healthz/ping"',
      );
    } finally {
      await admin.close();
      await anonymous.close();
      await wrong.close();
    }
  });

  it("refuses `Bearer  <token>` (two spaces: an empty token to kube) and `Bearer<TAB><token>` with 401", async () => {
    const client = ApiClient.for(server);
    try {
      for (const authorization of [`Bearer  ${TOKEN}`, `Bearer\t${TOKEN}`]) {
        const res = await client.get("/api/v1/namespaces", { headers: { authorization } });
        // A tab is no bearer credential at all: the request is anonymous (403).
        expect(res.status, JSON.stringify(authorization)).toBe(
          authorization.includes("\t") ? 403 : 401,
        );
        expect((await client.get("/healthz", { headers: { authorization } })).status).toBe(
          authorization.includes("\t") ? 200 : 401,
        );
      }
      const ok = await client.get("/api/v1/namespaces", {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it("kubeconfigDocument() has the server URL, certificate-authority-data and the token", () => {
    const doc = server.kubeconfigDocument();
    expect(doc.apiVersion).toBe("v1");
    expect(doc.kind).toBe("Config");
    expect(doc.clusters).toHaveLength(1);
    const cluster = doc.clusters[0]?.cluster;
    expect(cluster?.server).toBe(server.url);
    const caData = cluster?.["certificate-authority-data"] as string;
    expect(Buffer.from(caData, "base64").toString("utf8")).toBe(server.caPem);
    expect(doc.users[0]?.user.token).toBe(TOKEN);
    const context = doc.contexts.find((c) => c.name === doc["current-context"]);
    expect(context?.context.cluster).toBe(doc.clusters[0]?.name);
    expect(context?.context.user).toBe(doc.users[0]?.name);
    expect(context?.context.namespace).toBeUndefined();
    expect(server.kubeconfigDocument({ namespace: "team-a" }).contexts[0]?.context.namespace).toBe(
      "team-a",
    );
  });

  it("writeKubeconfig(path) writes that document as YAML with mode 0600", async () => {
    const path = join(scratch, "nested", "kubeconfig");
    await server.writeKubeconfig(path);
    const info = await stat(path);
    expect(info.mode & 0o777).toBe(0o600);
    expect(parse(await readFile(path, "utf8"))).toEqual(
      JSON.parse(JSON.stringify(server.kubeconfigDocument())),
    );
    await writeFile(path, "stale", { mode: 0o644 });
    await server.writeKubeconfig(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(parse(await readFile(path, "utf8")).users[0].user.token).toBe(TOKEN);
  });
});

describe("TLS with client certificates", () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await ApiServer.start({ tls: true, auth: { clientCertificates: true } });
  });

  afterAll(async () => {
    await server.stop();
  });

  it("a client certificate issued by the server's CA is accepted", async () => {
    const bob = await server.issueClientCertificate("bob", ["dev"]);
    expect(bob.certPem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    const client = ApiClient.for(server, { cert: bob.certPem, key: bob.keyPem });
    try {
      const res = await client.get("/api/v1/namespaces");
      expect(res.status).toBe(200);
      expect(res.json.kind).toBe("NamespaceList");
      const created = await client.post("/api/v1/namespaces/default/configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "from-bob" },
        data: { a: "b" },
      });
      expect(created.status).toBe(201);
    } finally {
      await client.close();
    }
  });

  it("a request without a certificate is system:anonymous (403)", async () => {
    const client = ApiClient.for(server);
    try {
      expectAnonymousForbidden(
        await client.get("/api/v1/namespaces"),
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      );
    } finally {
      await client.close();
    }
  });

  it("a certificate from another CA gets 401", async () => {
    const other = await createCertificateAuthority();
    const mallory = await other.issueClient({ user: "mallory", groups: ["system:masters"] });
    const client = ApiClient.for(server, { cert: mallory.certPem, key: mallory.keyPem });
    try {
      expectUnauthorized(await client.get("/api/v1/namespaces"));
      expectUnauthorized(
        await client.post("/api/v1/namespaces/default/configmaps", {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "from-mallory" },
        }),
      );
    } finally {
      await client.close();
    }
    const bob = await server.issueClientCertificate("bob");
    const trusted = ApiClient.for(server, { cert: bob.certPem, key: bob.keyPem });
    try {
      expect((await trusted.get("/api/v1/namespaces/default/configmaps/from-mallory")).status).toBe(
        404,
      );
    } finally {
      await trusted.close();
    }
  });

  it("health endpoints answer without a certificate", async () => {
    const client = ApiClient.for(server);
    try {
      const res = await client.get("/readyz");
      expect(res.status).toBe(200);
      expect(res.text).toBe("ok");
    } finally {
      await client.close();
    }
  });

  it("kubeconfigDocument() carries the admin client certificate and key", async () => {
    const doc = server.kubeconfigDocument();
    const user = doc.users[0]?.user;
    expect(user?.token).toBeUndefined();
    const cert = Buffer.from(user?.["client-certificate-data"] as string, "base64").toString();
    const key = Buffer.from(user?.["client-key-data"] as string, "base64").toString();
    expect(cert).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const client = ApiClient.for(server, { cert, key });
    try {
      expect((await client.get("/api/v1/namespaces")).status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describe("kubectl against the TLS + token server", () => {
  let server: ApiServer;
  let home: string;

  beforeAll(async () => {
    server = await ApiServer.start({ tls: true, auth: { tokens: { [TOKEN]: "alice" } } });
    home = await mkdtemp(join(tmpdir(), "kubekit-kubectl-"));
  });

  afterAll(async () => {
    await server.stop();
    await rm(home, { recursive: true, force: true });
  });

  (KUBECTL ? it : it.skip)(
    `kubectl get namespaces lists the four system namespaces ${KUBECTL ? "" : SKIP_KUBECTL}`.trim(),
    async () => {
      const kubeconfig = join(home, "good.kubeconfig");
      await server.writeKubeconfig(kubeconfig);
      const result = await runKubectl(["--kubeconfig", kubeconfig, "get", "namespaces"], home);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^NAME\s+STATUS\s+AGE$/);
      const names = lines.slice(1).map((l) => l.split(/\s+/)[0]);
      expect(names).toEqual(expect.arrayContaining(SYSTEM_NAMESPACES));
      for (const line of lines.slice(1)) expect(line).toMatch(/^\S+\s+Active\s+\S+$/);
    },
  );

  (KUBECTL ? it : it.skip)(
    `kubectl with a wrong token fails as Unauthorized ${KUBECTL ? "" : SKIP_KUBECTL}`.trim(),
    async () => {
      const doc = server.kubeconfigDocument();
      const wrong = {
        ...doc,
        users: doc.users.map((u) => ({ ...u, user: { ...u.user, token: WRONG_TOKEN } })),
      };
      const kubeconfig = join(home, "wrong.kubeconfig");
      await writeFile(kubeconfig, stringify(wrong), { mode: 0o600 });
      const result = await runKubectl(["--kubeconfig", kubeconfig, "get", "namespaces"], home);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/Unauthorized|You must be logged in/);
      expect(result.stdout).not.toContain("kube-system");
      expect(result.stderr).not.toContain(WRONG_TOKEN);
    },
  );
});
