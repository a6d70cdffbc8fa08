/**
 * The `hooks` key of `.memo/config.json`, and its defaults (in one place).
 *
 * @module
 */

/**
 * The settings of `memo hook`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOKS_DEFAULTS, type HooksConfig } from "./hook_config.ts";
 * const config: HooksConfig = { ...HOOKS_DEFAULTS, guardPrompts: true };
 * assert.equal(config.timeoutMs, 2000);
 * ```
 */
export interface HooksConfig {
  /**
   * The session-start brief's budget, in tokens (counted as characters ÷ 4).
   * @default 1500
   */
  sessionBudgetTokens: number;
  /**
   * The per-prompt budget, in tokens (characters ÷ 4).
   * @default 800
   */
  promptBudgetTokens: number;
  /**
   * Notes with any of these labels open the session-start brief.
   * @default ["pinned"]
   */
  pinnedLabels: string[];
  /**
   * Block a prompt that carries a secret (the secrets scanner's rules), naming the rule.
   * @default false
   */
  guardPrompts: boolean;
  /**
   * A hook that has not answered by then adds nothing (and logs it).
   * @default 2000
   */
  timeoutMs: number;
}

/**
 * The defaults of {@linkcode HooksConfig}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOKS_DEFAULTS } from "./hook_config.ts";
 * assert.deepEqual(HOOKS_DEFAULTS.pinnedLabels, ["pinned"]);
 * ```
 */
export const HOOKS_DEFAULTS: Readonly<HooksConfig> = Object.freeze({
  sessionBudgetTokens: 1500,
  promptBudgetTokens: 800,
  pinnedLabels: ["pinned"],
  guardPrompts: false,
  timeoutMs: 2000,
});

/**
 * The hooks settings of a parsed `config.json` (anything else: the defaults); values of the
 * wrong type are ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hooksConfig } from "./hook_config.ts";
 * assert.equal(hooksConfig({ hooks: { timeoutMs: 500 } }).timeoutMs, 500);
 * assert.equal(hooksConfig({ hooks: { timeoutMs: "x" } }).timeoutMs, 2000);
 * assert.equal(hooksConfig(undefined).guardPrompts, false);
 * ```
 */
export function hooksConfig(parsed: unknown): HooksConfig {
  const out: HooksConfig = { ...HOOKS_DEFAULTS, pinnedLabels: [...HOOKS_DEFAULTS.pinnedLabels] };
  const hooks = (parsed as { hooks?: unknown } | undefined)?.hooks;
  if (typeof hooks !== "object" || hooks === null) return out;
  const h = hooks as Record<string, unknown>;
  const positive = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v > 0;
  if (positive(h.sessionBudgetTokens)) out.sessionBudgetTokens = h.sessionBudgetTokens as number;
  if (positive(h.promptBudgetTokens)) out.promptBudgetTokens = h.promptBudgetTokens as number;
  if (positive(h.timeoutMs)) out.timeoutMs = h.timeoutMs as number;
  if (typeof h.guardPrompts === "boolean") out.guardPrompts = h.guardPrompts;
  if (Array.isArray(h.pinnedLabels) && h.pinnedLabels.every((l) => typeof l === "string")) {
    out.pinnedLabels = h.pinnedLabels as string[];
  }
  return out;
}
