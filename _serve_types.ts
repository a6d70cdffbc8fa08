/**
 * The types of serving HTTP that `_platform.ts` (Deno) and `_node_serve.ts`
 * (Node) share, in a file of their own so that neither imports the other's
 * module for them.
 *
 * @module
 */

/** A running HTTP server. */
export interface PlatformServer {
  /** Address actually bound (port 0 resolves to a free port). */
  readonly hostname: string;
  /** Port actually bound. */
  readonly port: number;
  /** Stops accepting connections and closes open ones. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  readonly finished: Promise<void>;
}

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Abort to stop the server. */
  signal?: AbortSignal;
}
