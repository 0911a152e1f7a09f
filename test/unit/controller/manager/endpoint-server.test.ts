import { afterEach, describe, expect, it } from "vitest";
import { noopLogger } from "kubekit";
import { EndpointServer } from "../../../../packages/kubekit/src/controller/manager/endpoint-server.js";
import { parseResponses, rawExchange, rawRequest } from "../../../support/raw-http.js";

describe("EndpointServer", () => {
  let server: EndpointServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers 400 to a request target that is no URL, and keeps serving", async () => {
    server = new EndpointServer(
      new Map([
        [
          "/metrics",
          () => Promise.resolve({ status: 200, contentType: "text/plain", body: "ok\n" }),
        ],
      ]),
      noopLogger,
    );
    const port = await server.listen(0, "127.0.0.1");
    const bad = await rawExchange(
      port,
      "GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(parseResponses(bad.bytes)[0]?.status).toBe(400);
    const good = await rawExchange(
      port,
      rawRequest("GET", "/metrics", { headers: { Connection: "close" } }),
    );
    expect(parseResponses(good.bytes)[0]).toMatchObject({ status: 200, body: "ok\n" });
  });
});
