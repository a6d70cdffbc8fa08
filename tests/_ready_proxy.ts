/**
 * Test helper: a small loopback load balancer that follows `GET /readyz`, as a
 * real one does. It asks every backend for `/readyz` every `probeMs`; a
 * backend is in rotation while its last answer was 200, out of it otherwise
 * (a 503, a refused connection, a timeout). Requests go round-robin to the
 * backends in rotation, forwarded as they came; with none in rotation the
 * proxy answers 503 itself, and a forward that fails answers 502: the
 * client sees both, which is what a rolling-restart test must never see.
 *
 * @module
 */

/** A running proxy. */
export interface ReadyProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Requests forwarded to each backend (by origin). */
  readonly forwarded: Map<string, number>;
  /** Answers the proxy made itself (502, 503), with why. */
  readonly failures: string[];
  /** Resolves once `backend` is in (`true`) or out of (`false`) rotation. */
  until(backend: string, inRotation: boolean): Promise<void>;
  /** Stops probing and serving. */
  close(): Promise<void>;
}

/** Starts a proxy in front of `backends` (origins). */
export function startReadyProxy(backends: string[], probeMs = 50): Promise<ReadyProxy> {
  const ready = new Map(backends.map((b) => [b, false]));
  const forwarded = new Map(backends.map((b) => [b, 0]));
  const failures: string[] = [];
  const waiters: { backend: string; inRotation: boolean; resolve: () => void }[] = [];
  let next = 0;
  let closed = false;

  const settle = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (ready.get(w.backend) === w.inRotation) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };

  const probe = async (backend: string) => {
    let ok = false;
    try {
      const response = await fetch(`${backend}/readyz`, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      ok = response.status === 200;
    } catch {
      ok = false;
    }
    if (!closed) ready.set(backend, ok);
  };
  const loop = (async () => {
    while (!closed) {
      await Promise.all(backends.map(probe));
      settle();
      await new Promise((resolve) => setTimeout(resolve, probeMs));
    }
  })();

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const live = backends.filter((b) => ready.get(b));
    if (!live.length) {
      failures.push(`503: no backend ready for ${req.method} ${new URL(req.url).pathname}`);
      return new Response("no backend ready", { status: 503 });
    }
    const backend = live[next++ % live.length];
    const url = new URL(req.url);
    const body = req.body ? await req.arrayBuffer() : undefined;
    try {
      const response = await fetch(`${backend}${url.pathname}${url.search}`, {
        method: req.method,
        headers: req.headers,
        body,
      });
      forwarded.set(backend, forwarded.get(backend)! + 1);
      return new Response(await response.arrayBuffer(), {
        status: response.status,
        headers: response.headers,
      });
    } catch (e) {
      failures.push(`502 from ${backend}: ${e instanceof Error ? e.message : e}`);
      return new Response("backend failed", { status: 502 });
    }
  });

  return Promise.resolve({
    origin: `http://127.0.0.1:${server.addr.port}`,
    forwarded,
    failures,
    until(backend, inRotation) {
      return new Promise<void>((resolve) => {
        waiters.push({ backend, inRotation, resolve });
        settle();
      });
    },
    async close() {
      closed = true;
      await loop;
      await server.shutdown();
    },
  });
}
