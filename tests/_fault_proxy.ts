/**
 * A loopback HTTP proxy that injects faults between a client and a server,
 * for the cloud runtime's fault-injection tests. Each request is forwarded
 * to `target` unless a queued fault takes it:
 *
 * - `down`: the proxy stops listening, so connections are refused, until `up()`;
 * - `status`: answers with a status (429 with `Retry-After`, 500 …) without
 *   forwarding;
 * - `hold`: forwards, then holds the answer until `release()` (or `close()`):
 *   an answer slower than any timeout, however loaded the machine (the server
 *   has done the work: a retry must not do it twice);
 * - `reset`: forwards, then sends the status line and part of the body and
 *   breaks the connection (the server has done the work here too).
 *
 * @module
 */

/** One injected fault, applied to the next request that reaches the proxy. */
export type Fault =
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string }
  | { kind: "hold" }
  | { kind: "reset" };

/** What the proxy saw of one request. */
export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** The fault applied, or `forward`. */
  outcome: Fault["kind"] | "forward";
  /** Milliseconds since the proxy started. */
  at: number;
}

/** A running fault proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:PORT` of the proxy. */
  readonly origin: string;
  /** Requests seen, in order. */
  readonly requests: ProxiedRequest[];
  /** Queues faults for the next requests, in order. */
  inject(...faults: Fault[]): void;
  /** Sends the answers that `hold` faults hold now (their clients may be gone). */
  release(): void;
  /** Stops listening: new connections are refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** Stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy to `target` (an origin) on a free loopback port. */
export function startFaultProxy(target: string): Promise<FaultProxy> {
  const faults: Fault[] = [];
  const requests: ProxiedRequest[] = [];
  const started = performance.now();
  /** Pending sleeps: their timers, and how to end them early. */
  const timers = new Map<ReturnType<typeof setTimeout>, () => void>();
  /** Answers held by `hold` faults: how to let each go. */
  const held = new Set<() => void>();
  let port = 0;
  let server: Deno.HttpServer | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const id = setTimeout(() => {
        timers.delete(id);
        resolve();
      }, ms);
      timers.set(id, resolve);
    });

  async function forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const body = request.body ? await request.arrayBuffer() : undefined;
    const answer = await fetch(new URL(url.pathname + url.search, target), {
      method: request.method,
      headers,
      body,
      redirect: "manual",
    });
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const out = new Headers(answer.headers);
    out.delete("content-length");
    out.delete("content-encoding");
    return new Response(bytes, { status: answer.status, headers: out });
  }

  async function handle(request: Request): Promise<Response> {
    const fault = faults.shift();
    const url = new URL(request.url);
    requests.push({
      method: request.method,
      path: url.pathname,
      idempotencyKey: request.headers.get("idempotency-key"),
      outcome: fault?.kind ?? "forward",
      at: performance.now() - started,
    });
    if (!fault) return await forward(request);
    if (fault.kind === "status") {
      await request.body?.cancel();
      return new Response(
        fault.body ??
          JSON.stringify({ error: { code: "internal", message: `injected ${fault.status}` } }),
        {
          status: fault.status,
          headers: { "content-type": "application/json", ...fault.headers },
        },
      );
    }
    const answer = await forward(request);
    if (fault.kind === "hold") {
      await new Promise<void>((resolve) => held.add(resolve));
      return answer;
    }
    // reset: the head and a few bytes of the body, then the stream fails and the connection breaks.
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const part = bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(part);
      },
      async pull(controller) {
        await sleep(20);
        controller.error(new Error("injected reset"));
      },
    });
    const headers = new Headers(answer.headers);
    headers.set("content-length", String(bytes.length)); // promises more than it sends
    return new Response(body, { status: answer.status, headers });
  }

  function listen(): void {
    server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      handle,
    );
    port = (server.addr as Deno.NetAddr).port;
  }

  listen();
  const proxy: FaultProxy = {
    get origin() {
      return `http://127.0.0.1:${port}`;
    },
    requests,
    inject: (...more) => void faults.push(...more),
    release() {
      for (const letGo of held) letGo();
      held.clear();
    },
    async down() {
      const current = server;
      server = undefined;
      await current?.shutdown();
    },
    up() {
      if (!server) listen();
    },
    async close() {
      // End the sleeps, not only their timers: a handler left asleep holds shutdown forever.
      for (const [id, wake] of timers) {
        clearTimeout(id);
        wake();
      }
      timers.clear();
      proxy.release();
      await proxy.down();
    },
  };
  return Promise.resolve(proxy);
}
