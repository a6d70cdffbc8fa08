/**
 * Processes the benchmarks start and watch (`bench/hybrid_bench.ts`, `bench/idle_bench.ts`): a
 * `memo mcp` spoken to over stdio, its CPU time and the lines of its output.
 *
 * @module
 */

import { join } from "node:path";
import { DENO, ROOT } from "./_http_kit.ts";

/** Splits a byte stream into lines. */
export class LineReader {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }
  /** The next line, or null at the end. */
  async next(): Promise<string | null> {
    while (true) {
      const at = this.#buffer.indexOf("\n");
      if (at >= 0) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        return line;
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        const rest = this.#buffer;
        this.#buffer = "";
        return rest || null;
      }
      this.#buffer += value;
    }
  }
}

/** Collects a child's stderr, keeping its last lines. */
export function tail(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text = (text + chunk).slice(-4000);
    }
  })().catch(() => {});
  return () => text.trim();
}

/** Clock ticks per second (`getconf CLK_TCK`; 100 on Linux). */
export async function clockTicks(): Promise<number> {
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped" }).output();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    return n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** A process's CPU time (user + system) in clock ticks, NaN once it is gone. */
export function processTicks(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  } catch {
    return NaN;
  }
}

/**
 * CPU time of a process's live threads so far, in milliseconds (the first field of each
 * `/proc/<pid>/task/<tid>/schedstat`, in nanoseconds: finer than the 10 ms ticks of
 * {@linkcode processTicks}, but without the threads that have ended); NaN once it is gone.
 */
export function threadsCpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(
          Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0],
        );
      } catch { /* the thread ended */ }
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** A `memo mcp` process (of the checkout at `checkout`) spoken to over stdio. */
export function startMcp(
  name: string,
  dir: string,
  env: Record<string, string>,
  checkout: string = ROOT,
) {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "--quiet", join(checkout, "cli.ts"), "mcp", "--dir", dir],
    cwd: checkout,
    env: { NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errors = tail(child.stderr);
  const lines = new LineReader(child.stdout);
  const stdin = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let id = 0;
  let exited = false;
  child.status.then(() => exited = true);
  // deno-lint-ignore no-explicit-any
  const request = async (method: string, params?: unknown): Promise<any> => {
    const my = ++id;
    await stdin.write(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }) + "\n"),
    );
    while (true) {
      const line = await lines.next();
      if (line === null) throw new Error(`${name}: memo mcp ended: ${errors()}`);
      const msg = JSON.parse(line);
      if (msg.id === my) {
        if (msg.error) throw new Error(`${name}: ${method}: ${JSON.stringify(msg.error)}`);
        return msg.result;
      }
    }
  };
  const notify = (method: string) =>
    stdin.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", method }) + "\n"));
  return {
    name,
    pid: child.pid,
    errors,
    exited: () => exited,
    request,
    notify,
    async stop() {
      await stdin.close().catch(() => {});
      const timer = setTimeout(() => child.kill("SIGTERM"), 5_000);
      const status = await child.status;
      clearTimeout(timer);
      return status.code;
    },
  };
}
