/**
 * What every view gets from the page: the MCP client, whether writes are
 * off, where errors go, and a counter that moves on every change of memory.
 *
 * @module
 */

import { McpCallError, type McpClient } from "./mcp.ts";

/** The page's services, passed to each view. */
export interface Api {
  /** The endpoint's client. */
  client: McpClient;
  /** Whether the server refuses writes. */
  readOnly: boolean;
  /** Shows an error (or asks for the token again, for a 401). */
  onError: (e: unknown) => void;
  /** Moves on every change of memory (live updates). */
  changes: number;
  /** The largest page the server answers (`maxPageSize`): the page asks for no more. */
  maxPageSize: number;
}

/** A note as the tools give it, and a stored note like one just remembered (`remember`'s `similar`). */
export type { Note, SimilarNote } from "@memo/memory";

/** One line for an error. */
export function errorText(e: unknown): string {
  if (e instanceof McpCallError) return e.message;
  if (e instanceof TypeError) return "Cannot reach the memo server.";
  return e instanceof Error ? e.message : String(e);
}

/** A time as the reader's locale writes it. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
