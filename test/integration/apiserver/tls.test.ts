import { once } from "node:events";
import { createServer, request } from "node:https";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateRequest } from "../../../packages/apiserver/src/auth/authentication.js";
import type { AuthenticationConfig } from "../../../packages/apiserver/src/auth/authentication.js";
import { createCertificateAuthority } from "../../../packages/apiserver/src/auth/certificates.js";
import type {
  CertificateAuthority,
  PemKeyPair,
} from "../../../packages/apiserver/src/auth/certificates.js";

const REQUEST_TIMEOUT_MS = 5_000;

const AUTHENTICATION: AuthenticationConfig = {
  clientCertificates: true,
  tokens: { "bob-token": { name: "bob", groups: ["viewers"] } },
  anonymous: false,
};

interface Reply {
  readonly status: number;
  readonly body: string;
}

let authority: CertificateAuthority;
let server: Server;
let port: number;

/** An HTTPS server that answers 200 with the authenticated user as JSON, or 401. */
async function startEchoServer(): Promise<void> {
  const serving = await authority.issueServing({
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1"],
  });
  server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: [authority.ca.certPem],
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const result = authenticateRequest(req, AUTHENTICATION);
      res.writeHead(result.ok ? 200 : 401, { "Content-Type": "application/json" });
      res.end(JSON.stringify(result));
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
}

/** GETs / from the echo server, trusting only the test CA, over a fresh connection. */
function get(
  options: { host?: string; clientCertificate?: PemKeyPair; token?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        servername: options.host,
        port,
        path: "/",
        ca: authority.ca.certPem,
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        ...(options.clientCertificate === undefined
          ? {}
          : { cert: options.clientCertificate.certPem, key: options.clientCertificate.keyPem }),
        headers: options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`request timed out after ${REQUEST_TIMEOUT_MS} ms`)),
    );
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  authority = await createCertificateAuthority();
  await startEchoServer();
});

afterAll(async () => {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("TLS with generated certificates", () => {
  it("authenticates a client certificate signed by the CA as its CN and O", async () => {
    const alice = await authority.issueClient({ user: "alice", groups: ["dev"] });
    const reply = await get({ clientCertificate: alice });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      ok: true,
      user: { name: "alice", groups: ["dev", "system:authenticated"] },
    });
  });

  it("reads several groups from a client certificate", async () => {
    const carol = await authority.issueClient({
      user: "carol",
      groups: ["dev", "ops", "system:masters"],
    });
    const reply = await get({ clientCertificate: carol });
    expect(JSON.parse(reply.body)).toEqual({
      ok: true,
      user: { name: "carol", groups: ["dev", "ops", "system:masters", "system:authenticated"] },
    });
  });

  it("refuses a serving certificate used as a client certificate", async () => {
    const serving = await authority.issueServing({ dnsNames: ["impostor"], ipAddresses: [] });
    expect((await get({ clientCertificate: serving })).status).toBe(401);
  });

  it("authenticates a bearer token", async () => {
    const reply = await get({ token: "bob-token" });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      ok: true,
      user: { name: "bob", groups: ["viewers", "system:authenticated"] },
    });
  });

  it("refuses a request without credentials when anonymous access is off", async () => {
    expect(await get()).toEqual({ status: 401, body: JSON.stringify({ ok: false }) });
  });

  it("refuses a wrong token without echoing it", async () => {
    const reply = await get({ token: "guess-123" });
    expect(reply.status).toBe(401);
    expect(reply.body).not.toContain("guess-123");
  });

  it("refuses a client certificate from another CA", async () => {
    const other = await createCertificateAuthority();
    const mallory = await other.issueClient({ user: "mallory", groups: ["system:masters"] });
    expect((await get({ clientCertificate: mallory })).status).toBe(401);
  });

  it("serves a certificate that verifies for localhost by name", async () => {
    const reply = await get({ host: "localhost", token: "bob-token" });
    expect(reply.status).toBe(200);
  });

  it("is rejected by a client that does not trust the CA", async () => {
    const untrusted = new Promise<void>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/", agent: false, timeout: REQUEST_TIMEOUT_MS },
        () => reject(new Error("the untrusted server was accepted")),
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (
          error.code === "SELF_SIGNED_CERT_IN_CHAIN" ||
          error.code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
        )
          resolve();
        else reject(error);
      });
      req.end();
    });
    await expect(untrusted).resolves.toBeUndefined();
  });
});
