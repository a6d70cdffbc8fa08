/**
 * `deno run -A scripts/test_setup.ts`: makes sure what the tests need outside
 * npm is on this machine, before `deno test` runs (the README's test command
 * runs it first). For each requirement it looks for the program; when one is
 * missing and we are root with `apt-get`, it installs the Debian package
 * (`apt-get update` first when the package lists do not know it); otherwise it
 * stops with the exact command to run. It prints short progress on stderr and
 * is a fast no-op when everything is present.
 *
 * Requirements: Chromium (the browser tests) and PostgreSQL's server programs
 * (`initdb`, `postgres`, `pg_ctl`, `pg_isready`, for the cloud store's tests,
 * which start their own throwaway clusters; see `tests/_postgres.ts`). To add
 * one, append an entry to {@linkcode REQUIREMENTS}.
 *
 * @module
 */

/** One thing the tests need from the operating system. */
export interface Requirement {
  /** Human name, for messages. */
  name: string;
  /** Finds the program; returns its path, or undefined when missing. */
  find(): Promise<string | undefined>;
  /** Debian packages that provide it. */
  aptPackages: readonly string[];
}

const CHROMIUM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The Chromium the browser tests start: `MEMO_CHROMIUM` when set, else the
 * first of Debian's and Google's usual paths that exists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findChromium } from "./test_setup.ts";
 *
 * const path = await findChromium(); // "/usr/bin/chromium", or undefined when missing
 * assert.ok(path === undefined || path.endsWith("chromium"));
 * ```
 */
export async function findChromium(): Promise<string | undefined> {
  const fromEnv = Deno.env.get("MEMO_CHROMIUM");
  if (fromEnv) return (await isExecutable(fromEnv)) ? fromEnv : undefined;
  for (const path of CHROMIUM_PATHS) if (await isExecutable(path)) return path;
  return undefined;
}

/** Where Debian puts each PostgreSQL major version's server programs (not on PATH). */
const POSTGRES_ROOT = "/usr/lib/postgresql";

/** The programs `tests/_postgres.ts` runs from PostgreSQL's bin folder. */
const POSTGRES_PROGRAMS = ["initdb", "postgres", "pg_ctl", "pg_isready"];

async function hasPostgresPrograms(bin: string): Promise<boolean> {
  for (const name of POSTGRES_PROGRAMS) {
    if (!(await isExecutable(`${bin}/${name}`))) return false;
  }
  return true;
}

/**
 * The folder holding PostgreSQL's server programs (`initdb`, `postgres`,
 * `pg_ctl`, `pg_isready`): `MEMO_POSTGRES_BIN` when set, else the newest
 * version's `bin` under Debian's `/usr/lib/postgresql/<version>/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findPostgresBin } from "./test_setup.ts";
 *
 * const bin = await findPostgresBin(); // "/usr/lib/postgresql/15/bin", or undefined when missing
 * assert.ok(bin === undefined || bin.endsWith("/bin"));
 * ```
 */
export async function findPostgresBin(): Promise<string | undefined> {
  const fromEnv = Deno.env.get("MEMO_POSTGRES_BIN");
  if (fromEnv) return (await hasPostgresPrograms(fromEnv)) ? fromEnv : undefined;
  const versions: string[] = [];
  try {
    for await (const entry of Deno.readDir(POSTGRES_ROOT)) {
      if (/^\d+(\.\d+)?$/.test(entry.name)) versions.push(entry.name);
    }
  } catch {
    return undefined;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = `${POSTGRES_ROOT}/${version}/bin`;
    if (await hasPostgresPrograms(bin)) return bin;
  }
  return undefined;
}

/**
 * Everything the tests need outside npm. Debian's `postgresql` package also
 * creates and may start a system cluster on port 5432; the tests never use it
 * (each run starts its own cluster on a free port, with its socket in its own
 * folder), so it is left as Debian sets it up.
 */
export const REQUIREMENTS: Requirement[] = [
  { name: "Chromium", find: findChromium, aptPackages: ["chromium"] },
  { name: "PostgreSQL", find: findPostgresBin, aptPackages: ["postgresql"] },
];

function log(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`test_setup: ${line}\n`));
}

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const out = await new Deno.Command(cmd, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { DEBIAN_FRONTEND: "noninteractive" },
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { ok: out.success, output: text };
  } catch (e) {
    return { ok: false, output: e instanceof Error ? e.message : String(e) };
  }
}

async function canUseApt(): Promise<boolean> {
  return Deno.uid() === 0 && await isExecutable("/usr/bin/apt-get");
}

async function aptKnows(pkg: string): Promise<boolean> {
  const { ok, output } = await run("apt-cache", ["policy", pkg]);
  return ok && /Candidate:\s*(?!\(none\))\S+/.test(output);
}

async function aptInstall(packages: readonly string[]): Promise<void> {
  const known = await Promise.all(packages.map(aptKnows));
  if (!known.every(Boolean)) {
    log("apt-get update");
    const update = await run("apt-get", ["update", "-q"]);
    if (!update.ok) throw new Error(`apt-get update failed:\n${tail(update.output)}`);
  }
  log(`apt-get install -y ${packages.join(" ")} (this takes a minute)`);
  const install = await run("apt-get", [
    "install",
    "-y",
    "-q",
    "--no-install-recommends",
    ...packages,
  ]);
  if (!install.ok) throw new Error(`apt-get install failed:\n${tail(install.output)}`);
}

function tail(text: string): string {
  return text.trim().split("\n").slice(-8).join("\n");
}

/**
 * Checks every requirement, installing what is missing when possible.
 * Returns the messages of the requirements that are still missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ensureRequirements } from "./test_setup.ts";
 *
 * const missing = await ensureRequirements(); // installs with apt-get when it can
 * assert.deepEqual(missing, []);
 * ```
 */
export async function ensureRequirements(
  requirements: readonly Requirement[] = REQUIREMENTS,
): Promise<string[]> {
  const missing: string[] = [];
  for (const req of requirements) {
    if (await req.find()) continue;
    const command = `sudo apt-get update && sudo apt-get install -y ${req.aptPackages.join(" ")}`;
    if (!(await canUseApt())) {
      missing.push(`${req.name} is missing; install it with: ${command}`);
      continue;
    }
    log(`${req.name} is missing; installing it`);
    try {
      await aptInstall(req.aptPackages);
    } catch (e) {
      missing.push(`${req.name} could not be installed (${(e as Error).message}); run: ${command}`);
      continue;
    }
    const found = await req.find();
    if (found) log(`${req.name}: ${found}`);
    else missing.push(`${req.name} is still missing after apt-get install; run: ${command}`);
  }
  return missing;
}

if (import.meta.main) {
  const missing = await ensureRequirements();
  if (missing.length) {
    for (const m of missing) log(m);
    Deno.exit(1);
  }
}
