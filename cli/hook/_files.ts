/**
 * Internal: the file calls of `memo hook`: the ones the platform hands (`CliIO.files`; `cli.ts`
 * hands the host's own, `platform/files.ts`).
 *
 * @module
 */

import type { CliFiles } from "../context.ts";

/** The hook's file calls: `io.files`; a caller that hands none cannot run the hook. */
export function hookFiles(given: CliFiles | undefined): Promise<CliFiles> {
  if (given) return Promise.resolve(given);
  return Promise.reject(
    new Error("Cannot run the hook: this platform gives memo no file calls (CliIO.files)"),
  );
}
