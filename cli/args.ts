/**
 * A small, strict flag parser for the `memo` command: unknown flags and
 * missing values are usage errors (exit code 2).
 *
 * @module
 */

/**
 * A usage error: bad flags or arguments. The CLI exits with code 2.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs, UsageError } from "./args.ts";
 *
 * assert.throws(() => parseArgs(["--nope"], {}), UsageError);
 * assert.throws(() => parseArgs(["--limit"], { string: ["limit"] }), {
 *   name: "UsageError",
 *   message: "flag --limit needs a value",
 * });
 * ```
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Which flags a command takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FlagSpec, parseArgs } from "./args.ts";
 *
 * const spec: FlagSpec = { string: ["limit"], multiple: ["label"], boolean: ["json"] };
 * const p = parseArgs(["--limit=5", "--label", "a", "--label", "b", "--json"], spec);
 * assert.deepEqual(p.flags, { limit: "5", label: ["a", "b"], json: true });
 * ```
 */
export interface FlagSpec {
  /** Flags that take a value (`--limit 5` or `--limit=5`). */
  string?: readonly string[];
  /** Flags that take a value and may repeat (`--label a --label b`). */
  multiple?: readonly string[];
  /** Flags without a value (`--json`). */
  boolean?: readonly string[];
}

/**
 * Parsed arguments.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ParsedArgs, parseArgs } from "./args.ts";
 *
 * const p: ParsedArgs = parseArgs(["recall", "--", "--not-a-flag"], {});
 * assert.deepEqual(p, { positional: ["recall", "--not-a-flag"], flags: {} });
 * ```
 */
export interface ParsedArgs {
  positional: string[];
  /** Flag values; repeated flags are arrays, booleans are `true`. */
  flags: Record<string, string | string[] | boolean>;
}

/**
 * Parses `argv` against a spec. `--` ends flags; `-h` is `--help`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 *
 * const p = parseArgs(["hi", "--label", "a", "--json"], {
 *   multiple: ["label"],
 *   boolean: ["json"],
 * });
 * assert.deepEqual(p.positional, ["hi"]);
 * assert.deepEqual(p.flags, { label: ["a"], json: true });
 * assert.deepEqual(parseArgs(["-h"], {}).flags, { help: true });
 * ```
 */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | string[] | boolean> = {};
  const strings = new Set(spec.string ?? []);
  const multiples = new Set(spec.multiple ?? []);
  const booleans = new Set(spec.boolean ?? []);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-" && !/^-\d/.test(arg)) {
        throw new UsageError(`unknown flag ${arg}`);
      }
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (booleans.has(name) || name === "help") {
      if (eq !== -1) throw new UsageError(`flag --${name} takes no value`);
      flags[name] = true;
      continue;
    }
    if (!strings.has(name) && !multiples.has(name)) throw new UsageError(`unknown flag --${name}`);
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`flag --${name} needs a value`);
      value = argv[++i];
    }
    if (multiples.has(name)) {
      const list = (flags[name] as string[] | undefined) ?? [];
      list.push(value);
      flags[name] = list;
    } else {
      if (name in flags) throw new UsageError(`flag --${name} given twice`);
      flags[name] = value;
    }
  }
  return { positional, flags };
}

/**
 * A string flag's value, if given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs, stringFlag } from "./args.ts";
 *
 * const p = parseArgs(["--title", "Deploys"], { string: ["title", "source"] });
 * assert.equal(stringFlag(p, "title"), "Deploys");
 * assert.equal(stringFlag(p, "source"), undefined);
 * ```
 */
export function stringFlag(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * A flag whose value must be one of `choices`; `undefined` when not given.
 * Throws `UsageError` ("flag --NAME must be one of A, B") for another value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { choiceFlag, parseArgs } from "./args.ts";
 *
 * const p = parseArgs(["--format", "md"], { string: ["format", "order"] });
 * assert.equal(choiceFlag(p, "format", ["jsonl", "md"] as const), "md");
 * assert.equal(choiceFlag(p, "order", ["oldest", "newest"] as const), undefined);
 * const bad = parseArgs(["--format", "csv"], { string: ["format"] });
 * assert.throws(() => choiceFlag(bad, "format", ["jsonl", "md"]), {
 *   name: "UsageError",
 *   message: "flag --format must be one of jsonl, md",
 * });
 * ```
 */
export function choiceFlag<T extends string>(
  p: ParsedArgs,
  name: string,
  choices: readonly T[],
): T | undefined {
  const value = stringFlag(p, name);
  if (value !== undefined && !(choices as readonly string[]).includes(value)) {
    throw new UsageError(`flag --${name} must be one of ${choices.join(", ")}`);
  }
  return value as T | undefined;
}

/**
 * A repeatable flag's values (empty when not given).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listFlag, parseArgs } from "./args.ts";
 *
 * const p = parseArgs(["--label", "infra", "--label", "ci"], { multiple: ["label", "connector"] });
 * assert.deepEqual(listFlag(p, "label"), ["infra", "ci"]);
 * assert.deepEqual(listFlag(p, "connector"), []);
 * ```
 */
export function listFlag(p: ParsedArgs, name: string): string[] {
  const v = p.flags[name];
  return Array.isArray(v) ? v : [];
}

/**
 * The values of a repeatable `--label` flag; an empty one is a usage error (it would name no label,
 * and `update --label ""` would clear the note's labels).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { labelsFlag, parseArgs, UsageError } from "./args.ts";
 *
 * const p = parseArgs(["--label", "ops", "--label", "ci"], { multiple: ["label"] });
 * assert.deepEqual(labelsFlag(p), ["ops", "ci"]);
 * const empty = parseArgs(["--label", " "], { multiple: ["label"] });
 * assert.throws(() => labelsFlag(empty), UsageError);
 * ```
 */
export function labelsFlag(p: ParsedArgs): string[] {
  const labels = listFlag(p, "label");
  if (labels.some((l) => l.trim() === "")) throw new UsageError("--label is empty");
  return labels;
}

/**
 * Whether a boolean flag was given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boolFlag, parseArgs } from "./args.ts";
 *
 * const p = parseArgs(["--json"], { boolean: ["json", "explain"] });
 * assert.equal(boolFlag(p, "json"), true);
 * assert.equal(boolFlag(p, "explain"), false);
 * ```
 */
export function boolFlag(p: ParsedArgs, name: string): boolean {
  return p.flags[name] === true;
}

/**
 * An integer flag within bounds; a usage error otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { intFlag, parseArgs } from "./args.ts";
 *
 * assert.equal(intFlag(parseArgs(["--limit", "5"], { string: ["limit"] }), "limit", 1, 100), 5);
 * assert.throws(
 *   () => intFlag(parseArgs(["--limit", "500"], { string: ["limit"] }), "limit", 1, 100),
 *   /flag --limit must be an integer from 1 to 100/,
 * );
 * ```
 */
export function intFlag(
  p: ParsedArgs,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const v = stringFlag(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`flag --${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/**
 * Exactly as many positional arguments as `names`, which name them for the error message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs, positionals } from "./args.ts";
 *
 * assert.deepEqual(positionals(parseArgs(["x1"], {}), ["id"]), ["x1"]);
 * assert.throws(() => positionals(parseArgs([], {}), ["id"]), /missing id/);
 * assert.throws(
 *   () => positionals(parseArgs(["x1", "x2"], {}), ["id"]),
 *   /unexpected argument "x2"/,
 * );
 * ```
 */
export function positionals(p: ParsedArgs, names: readonly string[]): string[] {
  if (p.positional.length < names.length) {
    throw new UsageError(`missing ${names[p.positional.length]}`);
  }
  if (p.positional.length > names.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[names.length])}`);
  }
  return p.positional;
}
