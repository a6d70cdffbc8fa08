/**
 * Public types of the MCP protocol server. The transports (stdio, HTTP, the
 * SDK bridge) only move bytes; everything else happens behind
 * {@linkcode MemoMcpProtocolServer.handle}.
 *
 * NOTE (lead): the signatures of `handle`, `handleParsed` and
 * `MemoMcpRequestContext` are the contract between server/ and the HTTP
 * transport (http.ts, server/http_*.ts), written by two people at once. Extend,
 * do not change them without telling the lead.
 *
 * @module
 */

/** Transports the protocol server is reached through. */
export type MemoMcpTransportKind = "stdio" | "http" | "sdk";

/** What the HTTP layer learnt about the caller when it authenticated the request. */
export interface MemoMcpAuthInfo {
  /** Kind of authentication that succeeded. */
  scheme: "bearer" | "custom" | "none";
  /** Free-form facts a custom `authenticate` wants to pass to `authorize`. Never holds the token. */
  extra?: Record<string, unknown>;
}

/** Per-message context a transport passes to the protocol server. */
export interface MemoMcpRequestContext {
  /** Which transport the message came through. */
  transport: MemoMcpTransportKind;
  /** The HTTP request, for the HTTP transport. */
  request?: Request;
  /** Result of the HTTP layer's authentication. */
  authInfo?: MemoMcpAuthInfo;
  /**
   * Protocol version in force for this message. Stateless HTTP passes the
   * `MCP-Protocol-Version` header (already checked as supported) or
   * `2025-03-26` when the header is absent. Stdio leaves it unset: the server
   * remembers what `initialize` negotiated on that connection.
   */
  protocolVersion?: string;
  /** Size in bytes of the raw message, when the transport already knows it (for `maxInputBytes`). */
  inputBytes?: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * Sends a server-to-client notification (one serialized JSON-RPC message)
   * on the same connection. Only connection-oriented transports (stdio) set
   * it; the server uses it for `notifications/message` once the client has
   * called `logging/setLevel`.
   */
  notify?: (message: string) => void;
}

/** The transport-agnostic JSON-RPC 2.0 handler. */
export interface MemoMcpProtocolServer {
  /** Server name reported by `initialize`. */
  readonly name: string;
  /** Server version reported by `initialize`. */
  readonly version: string;
  /**
   * Handles one raw message (a JSON-RPC request, notification, response or
   * batch). Returns the serialized JSON-RPC response (or batch response), or
   * `undefined` when there is nothing to answer (only notifications or
   * responses). Invalid JSON gets a -32700 response with id null. Never throws.
   */
  handle(raw: string | Uint8Array, context?: MemoMcpRequestContext): Promise<string | undefined>;
  /** Like {@linkcode handle}, for a message the transport already parsed. */
  handleParsed(message: unknown, context?: MemoMcpRequestContext): Promise<string | undefined>;
}
