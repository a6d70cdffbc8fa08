/**
 * Internal: the `watch` listeners of a runtime whose source of changes may not exist yet (a
 * memory client still opening, a runtime still being built). Each listener is attached to the
 * source once it exists, stopped by its own unsubscribe function or by `clear()`, and shielded
 * from the others: one that throws does not keep them from being called.
 *
 * @module
 */

import { MemoRuntimeError } from "./errors.ts";
import type { RuntimeChange } from "./types.ts";

interface Entry {
  onChange: (change: RuntimeChange) => void;
  attached: boolean;
  stop?: () => void;
}

/** A runtime's `watch` listeners. */
export class RuntimeListeners {
  readonly #entries = new Set<Entry>();

  /** Number of listeners. */
  get size(): number {
    return this.#entries.size;
  }

  /** Adds a listener, unattached; returns the function that removes it (idempotent). */
  add(onChange: (change: RuntimeChange) => void): () => void {
    const entry: Entry = { onChange, attached: false };
    this.#entries.add(entry);
    return () => {
      if (this.#entries.delete(entry)) entry.stop?.();
    };
  }

  /**
   * A runtime's `watch(onChange)`: refuses a `closed` runtime (`UNAVAILABLE`) and an `onChange` that
   * is not a function (`INVALID_INPUT`), else {@linkcode add}s it.
   */
  watch(closed: boolean, onChange: (change: RuntimeChange) => void): () => void {
    if (closed) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot watch the memory: the runtime is closed");
    }
    if (typeof onChange !== "function") {
      throw new MemoRuntimeError(
        "INVALID_INPUT",
        "Cannot watch the memory: onChange must be a function",
      );
    }
    return this.add(onChange);
  }

  /**
   * Attaches every listener not attached yet to a source: `subscribe` registers a callback
   * there and returns the function that unregisters it.
   */
  attach(subscribe: (deliver: (change: RuntimeChange) => void) => () => void): void {
    for (const entry of this.#entries) {
      if (entry.attached) continue;
      entry.attached = true;
      try {
        entry.stop = subscribe((change) => this.#deliver(entry, change));
      } catch {
        // A source that refuses (closed meanwhile) delivers nothing; the listener stays
        // registered until it is removed or cleared.
      }
    }
  }

  /** Calls every listener directly (for changes the source does not report itself). */
  emit(change: RuntimeChange): void {
    for (const entry of [...this.#entries]) this.#deliver(entry, change);
  }

  /** Removes every listener, stopping each at its source. */
  clear(): void {
    const entries = [...this.#entries];
    this.#entries.clear();
    for (const entry of entries) {
      try {
        entry.stop?.();
      } catch {
        // Stopping is best effort: the entry is gone either way.
      }
    }
  }

  #deliver(entry: Entry, change: RuntimeChange): void {
    // Removed (or cleared) listeners get nothing more, even from a change already under way.
    if (!this.#entries.has(entry)) return;
    try {
      entry.onChange({ ids: [...change.ids], listChanged: change.listChanged });
    } catch {
      // A listener's failure is its own: the runtime and the other listeners go on.
    }
  }
}
