/** @jsxImportSource npm:preact@11.2.0 */
/**
 * Scopes on the page: which memories the server serves (`memory_stats`' `scopes` and
 * `defaultScope`), a note's scope badge, and the scope choices of the filter and the editor.
 *
 * The badge shows on every note when the server serves more than one scope, and on a note of
 * another scope than `project` whatever it serves; a hosted endpoint (the project alone) shows none.
 *
 * @module
 */

import type { Note } from "./api.ts";

/** A memory: the person's (`user`), the team's (`project`) or this checkout's (`local`). */
export type Scope = "user" | "project" | "local";

/** Every scope, broadest first: the order the page lists them in. */
export const SCOPES: readonly Scope[] = ["user", "project", "local"];

/** What each scope holds, as the page explains it. */
export const SCOPE_PURPOSE: Record<Scope, string> = {
  user: "yours, in every project",
  project: "this project's, shared with the team",
  local: "private to this checkout",
};

/** The scopes a server serves, and where a new note goes by default. */
export interface ServedScopes {
  /** The scopes served, in {@linkcode SCOPES} order; `["project"]` when the server says none. */
  served: Scope[];
  /** Where a note goes without a choice. */
  defaultScope: Scope;
}

/** The scopes `memory_stats` says are served (its `scopes` keys), the project alone otherwise. */
export function servedScopes(
  stats: { scopes?: Partial<Record<Scope, number>>; defaultScope?: Scope } | null,
): ServedScopes {
  const counted = SCOPES.filter((s) => stats?.scopes?.[s] !== undefined);
  const served = counted.length ? counted : ["project" as const];
  const wanted = stats?.defaultScope;
  const defaultScope = wanted && served.includes(wanted)
    ? wanted
    : served.includes("project")
    ? "project"
    : served[0];
  return { served, defaultScope };
}

/** A note's scope: a note that names none is the project's. */
export function scopeOf(note: Note): Scope {
  return note.scope ?? "project";
}

/** The badge of a note's scope (see the module's rule for when it shows). */
export function ScopeBadge({ note, scopes }: { note: Note; scopes: ServedScopes }) {
  const scope = scopeOf(note);
  if (scopes.served.length < 2 && scope === "project") return null;
  return (
    <span class={`badge scope ${scope}`} title={`Scope: ${SCOPE_PURPOSE[scope]}`}>
      {scope}
    </span>
  );
}
