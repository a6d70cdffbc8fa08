/**
 * A small, strict flag parser for the `memo` command: unknown flags and
 * missing values are usage errors (exit code 2).
 *
 * @module
 */

/** A usage error: bad flags or arguments. The CLI exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Which flags a command takes. */
export interface FlagSpec {
  /** Flags that take a value (`--limit 5` or `--limit=5`). */
  string?: readonly string[];
  /** Flags that take a value and may repeat (`--label a --label b`). */
  multiple?: readonly string[];
  /** Flags without a value (`--json`). */
  boolean?: readonly string[];
}

/** Parsed arguments. */
export interface ParsedArgs {
  /** Positional arguments. */
  positional: string[];
  /** Flag values; repeated flags are arrays, booleans are `true`. */
  flags: Record<string, string | string[] | boolean>;
}

/**
 * Parses `argv` against a spec. `--` ends flags; `-h` is `--help`.
 *
 * @example
 * ```ts
 * import { parseArgs } from "./args.ts";
 * const p = parseArgs(["hi", "--label", "a", "--json"], { multiple: ["label"], boolean: ["json"] });
 * console.log(p.positional, p.flags); // ["hi"] { label: ["a"], json: true }
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

/** A string flag's value, if given. */
export function stringFlag(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** A repeatable flag's values (empty when not given). */
export function listFlag(p: ParsedArgs, name: string): string[] {
  const v = p.flags[name];
  return Array.isArray(v) ? v : [];
}

/** Whether a boolean flag was given. */
export function boolFlag(p: ParsedArgs, name: string): boolean {
  return p.flags[name] === true;
}

/**
 * An integer flag within bounds; a usage error otherwise.
 *
 * @example
 * ```ts
 * import { intFlag, parseArgs } from "./args.ts";
 * intFlag(parseArgs(["--limit", "5"], { string: ["limit"] }), "limit", 1, 100); // 5
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

/** Exactly `count` positional arguments, named for the error message. */
export function positionals(p: ParsedArgs, names: readonly string[]): string[] {
  if (p.positional.length < names.length) {
    throw new UsageError(`missing ${names[p.positional.length]}`);
  }
  if (p.positional.length > names.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[names.length])}`);
  }
  return p.positional;
}
