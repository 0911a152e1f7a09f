import { Pool, type Dispatcher } from "undici";

/** Time limit for the response headers and between body chunks of one benchmark request. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** An undici connection pool to `url` with `connections` keep-alive connections (no pipelining). */
export function connectionPool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

/** One write request of a load: a JSON body sent with a method to a path. */
export interface WriteRequest {
  readonly method: "POST" | "PUT" | "PATCH";
  readonly path: string;
  readonly body: string;
  readonly contentType: string;
  /** The status the request must answer; any other fails the load. */
  readonly expectStatus: number;
  /** Sent as User-Agent (kube-apiserver derives the field manager from it). */
  readonly userAgent: string;
}

/**
 * Sends a write and reads the whole response; resolves to the response's size in bytes and
 * rejects (with the start of the body) when the status is not the expected one.
 */
export async function sendWrite(
  pool: Dispatcher,
  write: WriteRequest,
  signal?: AbortSignal,
): Promise<number> {
  const res = await pool.request({
    method: write.method,
    path: write.path,
    body: write.body,
    headers: {
      "content-type": write.contentType,
      "user-agent": write.userAgent,
      accept: "application/json",
    },
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== write.expectStatus) {
    throw new Error(
      `${write.method} ${write.path}: status ${res.statusCode}, expected ${write.expectStatus}: ${body.toString("utf8", 0, 300)}`,
    );
  }
  return body.length;
}

/**
 * Runs `task(0 … count-1)` with at most `concurrency` tasks in flight, each worker taking the
 * next index when its task settles. The first failure stops the workers from taking more
 * and is rethrown once the tasks in flight have settled.
 */
export async function runConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < count) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failure) throw failure.error;
}

/**
 * Sends `count` writes built by `build(i)` with `concurrency` in flight; resolves to the
 * elapsed milliseconds and the bytes received.
 */
export async function loadWrites(
  pool: Dispatcher,
  count: number,
  concurrency: number,
  build: (index: number) => WriteRequest,
  signal?: AbortSignal,
): Promise<{ ms: number; responseBytes: number }> {
  let responseBytes = 0;
  const start = performance.now();
  await runConcurrently(count, concurrency, async (i) => {
    responseBytes += await sendWrite(pool, build(i), signal);
  });
  return { ms: performance.now() - start, responseBytes };
}
