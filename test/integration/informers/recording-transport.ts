import { type RestConfig, Transport, type TransportRequest, type TransportResponse } from "kubekit";

/** One request a {@link RecordingTransport} sent. */
export interface SentRequest {
  readonly method: string;
  readonly url: URL;
  readonly accept: string | undefined;
}

/** A transport that records every request it sends, for counting lists and watches. */
export class RecordingTransport extends Transport {
  readonly sent: SentRequest[] = [];

  constructor(config: RestConfig) {
    super(config);
  }

  override async send(req: TransportRequest): Promise<TransportResponse> {
    const accept = Object.entries(req.headers).find(([name]) => name.toLowerCase() === "accept");
    this.sent.push({ method: req.method, url: req.url, accept: accept?.[1] });
    return super.send(req);
  }

  /** The list requests (GET without watch=true) whose path is `path`. */
  lists(path: string): SentRequest[] {
    return this.sent.filter(
      (r) =>
        r.method === "GET" && r.url.pathname === path && r.url.searchParams.get("watch") !== "true",
    );
  }

  /** The watch requests (GET with watch=true) whose path is `path`. */
  watches(path: string): SentRequest[] {
    return this.sent.filter(
      (r) =>
        r.method === "GET" && r.url.pathname === path && r.url.searchParams.get("watch") === "true",
    );
  }
}
