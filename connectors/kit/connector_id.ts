/**
 * The connector id: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.
 *
 * @module
 */

import { ConnectorConfigError } from "../errors.ts";

export const CONNECTOR_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks a connector id; throws `ConnectorConfigError` when it does not match the pattern. */
export function checkConnectorId(id: unknown): string {
  if (typeof id !== "string" || !CONNECTOR_ID_PATTERN.test(id)) {
    throw new ConnectorConfigError(
      "Cannot create connector: id must be 1 to 64 letters, digits, '.', '_' or '-'",
    );
  }
  return id;
}
