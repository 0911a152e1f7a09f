import type { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import type { PeerCertificate } from "node:tls";
import { TLSSocket } from "node:tls";
import { describe, expect, it } from "vitest";
import { authenticateRequest } from "../../../packages/apiserver/src/auth/authentication.js";
import type {
  AuthenticationConfig,
  UserInfo,
} from "../../../packages/apiserver/src/auth/authentication.js";

const ALICE: UserInfo = { name: "alice", groups: ["dev"], uid: "uid-alice" };
const BOB: UserInfo = { name: "bob", groups: [] };
const TOKENS = { "alice-token": ALICE, "bob-token": BOB };

const ANONYMOUS = { name: "system:anonymous", groups: ["system:unauthenticated"] };

/** A request with the given Authorization header over a plain TCP socket. */
function requestWith(authorization?: string, socket: Socket = new Socket()): IncomingMessage {
  const headers = authorization === undefined ? {} : { authorization };
  return { headers, socket } as unknown as IncomingMessage;
}

/** A TLS socket as Node's server leaves it: the peer certificate (or `{}`) and whether it chained to the CA. */
function tlsSocket(cert: Partial<PeerCertificate>, authorized: boolean): TLSSocket {
  return Object.create(TLSSocket.prototype, {
    authorized: { value: authorized },
    getPeerCertificate: { value: () => cert },
  }) as TLSSocket;
}

function peerCertificate(
  subject: Record<string, string | string[]>,
  extKeyUsage?: string[],
): Partial<PeerCertificate> {
  return {
    subject: subject as unknown as PeerCertificate["subject"],
    raw: Buffer.from([1]),
    ...(extKeyUsage === undefined ? {} : { ext_key_usage: extKeyUsage }),
  };
}

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

describe("authenticateRequest with bearer tokens", () => {
  const config: AuthenticationConfig = { tokens: TOKENS };

  it("maps a known token to its user and adds system:authenticated", () => {
    expect(authenticateRequest(requestWith("Bearer alice-token"), config)).toEqual({
      ok: true,
      user: { name: "alice", groups: ["dev", "system:authenticated"], uid: "uid-alice" },
    });
    expect(authenticateRequest(requestWith("Bearer bob-token"), config)).toEqual({
      ok: true,
      user: { name: "bob", groups: ["system:authenticated"] },
    });
  });

  it("accepts the scheme in any case, trims the header and ignores a third part, as kube does", () => {
    for (const header of [
      "bearer alice-token",
      "BEARER alice-token",
      "  Bearer alice-token  ",
      "Bearer alice-token trailing words",
    ]) {
      const result = authenticateRequest(requestWith(header), config);
      expect(result.ok && result.user.name).toBe("alice");
    }
  });

  it("rejects a token after two spaces (an empty token to kube) even when anonymous access is on", () => {
    for (const header of ["Bearer  alice-token", "  Bearer   alice-token  "]) {
      expect(authenticateRequest(requestWith(header), config)).toEqual({ ok: false });
      expect(authenticateRequest(requestWith(header), { ...config, anonymous: true })).toEqual({
        ok: false,
      });
    }
  });

  it("reads a tab after the scheme as no bearer credential: anonymous when allowed, refused otherwise", () => {
    const header = "Bearer\talice-token";
    expect(authenticateRequest(requestWith(header), { ...config, anonymous: false })).toEqual({
      ok: false,
    });
    expect(authenticateRequest(requestWith(header), { ...config, anonymous: true })).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
  });

  it("rejects an unknown token, one differing by a character, and a prefix of a known token", () => {
    for (const header of [
      "Bearer nope",
      "Bearer alice-tokeN",
      "Bearer alice-toke",
      "Bearer alice-token2",
    ]) {
      expect(authenticateRequest(requestWith(header), config)).toEqual({ ok: false });
    }
  });

  it("rejects an unknown token even when anonymous access is on, and never returns the token", () => {
    const result = authenticateRequest(requestWith("Bearer secret-guess"), {
      ...config,
      anonymous: true,
    });
    expect(result).toEqual({ ok: false });
    expect(JSON.stringify(result)).not.toContain("secret-guess");
  });

  it("treats other schemes and an empty token as no credential", () => {
    const withAnonymous = { ...config, anonymous: true };
    for (const header of [
      "Basic YWxpY2U6cHc=",
      "Bearer",
      "Bearer   ",
      "alice-token",
      "Bearertoken alice-token",
    ]) {
      expect(authenticateRequest(requestWith(header), withAnonymous)).toEqual({
        ok: true,
        user: ANONYMOUS,
      });
      expect(authenticateRequest(requestWith(header), { ...config, anonymous: false })).toEqual({
        ok: false,
      });
    }
  });

  it("does not duplicate system:authenticated and keeps system:unauthenticated users as they are", () => {
    const tokens = {
      a: { name: "a", groups: ["system:authenticated", "x"] },
      u: { name: "u", groups: ["system:unauthenticated"] },
    };
    const a = authenticateRequest(requestWith("Bearer a"), { tokens });
    const u = authenticateRequest(requestWith("Bearer u"), { tokens });
    expect(a.ok && a.user.groups).toEqual(["system:authenticated", "x"]);
    expect(u.ok && u.user.groups).toEqual(["system:unauthenticated"]);
  });

  it("returns a copy that does not alias the configured user", () => {
    const result = authenticateRequest(requestWith("Bearer alice-token"), config);
    expect(result.ok && result.user).not.toBe(ALICE);
    expect(ALICE.groups).toEqual(["dev"]);
  });

  it("ignores bearer tokens when no tokens are configured", () => {
    expect(authenticateRequest(requestWith("Bearer alice-token"), {})).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
    expect(authenticateRequest(requestWith("Bearer alice-token"), { anonymous: false })).toEqual({
      ok: false,
    });
  });

  it("rejects every token when the token table is empty", () => {
    expect(authenticateRequest(requestWith("Bearer x"), { tokens: {} })).toEqual({ ok: false });
  });
});

describe("authenticateRequest anonymous access", () => {
  it("defaults to on when no authenticator is configured", () => {
    expect(authenticateRequest(requestWith(), {})).toEqual({ ok: true, user: ANONYMOUS });
  });

  it("defaults to on with tokens or client certificates too, as kube's --anonymous-auth", () => {
    for (const config of [{ tokens: TOKENS }, { tokens: {} }, { clientCertificates: true }]) {
      expect(authenticateRequest(requestWith(), config)).toEqual({ ok: true, user: ANONYMOUS });
    }
  });

  it("follows an explicit setting", () => {
    expect(authenticateRequest(requestWith(), { tokens: TOKENS, anonymous: true })).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
    expect(authenticateRequest(requestWith(), { anonymous: false })).toEqual({ ok: false });
  });
});

describe("authenticateRequest with client certificates", () => {
  const config: AuthenticationConfig = { clientCertificates: true };

  it("maps CN to the user and every O to a group", () => {
    const socket = tlsSocket(
      peerCertificate({ CN: "alice", O: ["dev", "ops"] }, [CLIENT_AUTH]),
      true,
    );
    expect(authenticateRequest(requestWith(undefined, socket), config)).toEqual({
      ok: true,
      user: { name: "alice", groups: ["dev", "ops", "system:authenticated"] },
    });
  });

  it("accepts a single O as a string and no O at all", () => {
    const one = authenticateRequest(
      requestWith(undefined, tlsSocket(peerCertificate({ CN: "a", O: "g" }), true)),
      config,
    );
    const none = authenticateRequest(
      requestWith(undefined, tlsSocket(peerCertificate({ CN: "b" }), true)),
      config,
    );
    expect(one.ok && one.user.groups).toEqual(["g", "system:authenticated"]);
    expect(none.ok && none.user).toEqual({ name: "b", groups: ["system:authenticated"] });
  });

  it("uses the last CN when there are several", () => {
    const result = authenticateRequest(
      requestWith(undefined, tlsSocket(peerCertificate({ CN: ["first", "last"] }), true)),
      config,
    );
    expect(result.ok && result.user.name).toBe("last");
  });

  it("rejects a certificate that did not verify against the CA, even with anonymous access on", () => {
    const socket = tlsSocket(peerCertificate({ CN: "mallory" }, [CLIENT_AUTH]), false);
    expect(
      authenticateRequest(requestWith(undefined, socket), { ...config, anonymous: true }),
    ).toEqual({ ok: false });
  });

  it("rejects a certificate whose extended key usage excludes clientAuth", () => {
    const socket = tlsSocket(peerCertificate({ CN: "server" }, [SERVER_AUTH]), true);
    expect(authenticateRequest(requestWith(undefined, socket), config)).toEqual({ ok: false });
  });

  it("treats a certificate with an empty CN, and no certificate, as no credential", () => {
    const withAnonymous = { ...config, anonymous: true };
    const emptyCn = tlsSocket(peerCertificate({ CN: "", O: "dev" }), true);
    const noCert = tlsSocket({}, false);
    expect(authenticateRequest(requestWith(undefined, emptyCn), withAnonymous)).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
    expect(authenticateRequest(requestWith(undefined, noCert), withAnonymous)).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
    expect(
      authenticateRequest(requestWith(undefined, noCert), { ...config, anonymous: false }),
    ).toEqual({ ok: false });
  });

  it("ignores certificates when client certificate authentication is off", () => {
    const socket = tlsSocket(peerCertificate({ CN: "alice" }), true);
    expect(authenticateRequest(requestWith(undefined, socket), { anonymous: true })).toEqual({
      ok: true,
      user: ANONYMOUS,
    });
  });

  it("prefers a valid certificate over a bad token, and a valid token over a bad certificate", () => {
    const both: AuthenticationConfig = { clientCertificates: true, tokens: TOKENS };
    const goodCert = tlsSocket(peerCertificate({ CN: "carol" }), true);
    const badCert = tlsSocket(peerCertificate({ CN: "mallory" }), false);
    const certWins = authenticateRequest(requestWith("Bearer wrong", goodCert), both);
    const tokenWins = authenticateRequest(requestWith("Bearer bob-token", badCert), both);
    expect(certWins.ok && certWins.user.name).toBe("carol");
    expect(tokenWins.ok && tokenWins.user.name).toBe("bob");
    expect(authenticateRequest(requestWith("Bearer wrong", badCert), both)).toEqual({ ok: false });
  });
});
