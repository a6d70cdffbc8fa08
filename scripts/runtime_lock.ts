/**
 * The two lock files. `deno.dev.lock` locks everything: memo, its tests, benchmarks and
 * scripts. `deno.lock`, the lock Deno finds by itself, is the same lock cut down to what memo runs:
 * the npm packages that the module graphs of {@link RUNTIME_ENTRIES} name, with their own
 * dependencies, at the versions and integrity hashes of `deno.dev.lock`.
 *
 * Why two: `deno task` caches every npm package of the lock before it runs anything (even `echo`),
 * so with one lock the first `deno task start` in a fresh clone downloaded 669 MB (Playwright,
 * TypeScript, onnxruntime, the conformance suite…) before it served. The tasks that need the rest
 * (`test`, `ok`, `bench`, `build:npm`, `build:web`) run their scripts with
 * `--lock=deno.dev.lock`, and so do the tests for the processes they start on test-only code.
 * Both locks are frozen: a dependency that memo's own code adds must be in both, so run this script
 * after changing `deno.dev.lock` (`deno cache --lock=deno.dev.lock --frozen=false <file>` adds the
 * packages a file imports to it).
 *
 * Usage: `deno run -A --lock=deno.dev.lock scripts/runtime_lock.ts [--check]`. It writes
 * `deno.lock` (with `--check`, it only compares, and exits 1 when `deno.lock` differs).
 * `tests/start_lock_test.ts` runs the check.
 *
 * @module
 */

/** The files memo is started or imported by: their module graphs make `deno.lock`. */
export const RUNTIME_ENTRIES: readonly string[] = [
  "cli.ts",
  "mod.ts",
  "http.ts",
  "memory/mod.ts",
  "memory/notes/format.ts",
  "connectors/mod.ts",
  "cloud/main.ts",
  // Loaded by URL in a worker thread, so in no static graph.
  "memory/embed/_worker.ts",
];

/** A Deno lock file (version 5), the parts this script reads and writes. */
export interface Lockfile {
  /** The lock file format. */
  version: string;
  /** npm specifiers, as written in code or an import map, to the version they resolved to. */
  specifiers?: Record<string, string>;
  /** Each npm package (`name@version`, with a peer suffix) and what it depends on. */
  npm?: Record<string, { dependencies?: string[]; optionalDependencies?: string[] }>;
  /** The import maps' dependencies, as Deno records them. */
  workspace?: unknown;
  /** Anything else (remote modules, jsr), kept as is. */
  [key: string]: unknown;
}

/** The package name of a lock key or specifier body: `@scope/name@1.2.3_peer` → `@scope/name`. */
function nameOf(id: string): string {
  const at = id.indexOf("@", 1);
  return at < 0 ? id : id.slice(0, at);
}

/** The npm specifier a resolved import names, without its subpath: `npm:a@1/x.js` → `npm:a@1`. */
function packageSpecifier(specifier: string): string {
  const body = specifier.slice("npm:".length);
  const name = nameOf(body);
  const rest = body.slice(name.length);
  const slash = rest.indexOf("/");
  return `npm:${name}${slash < 0 ? rest : rest.slice(0, slash)}`;
}

/**
 * The npm specifiers that `deno info --json` graphs name (each import as resolved through the
 * import maps, subpaths dropped), sorted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { graphSpecifiers } from "./runtime_lock.ts";
 *
 * const graph = {
 *   modules: [{
 *     specifier: "file:///repo/a.ts",
 *     dependencies: [
 *       { specifier: "zod", code: { specifier: "npm:zod@^4.1.0" } },
 *       { specifier: "./b.ts", code: { specifier: "file:///repo/b.ts" } },
 *       { specifier: "x", type: { specifier: "npm:@s/x@1.0.0/types.js" } },
 *     ],
 *   }],
 * };
 * assert.deepEqual(graphSpecifiers([graph]), ["npm:@s/x@1.0.0", "npm:zod@^4.1.0"]);
 * ```
 */
export function graphSpecifiers(graphs: readonly unknown[]): string[] {
  const found = new Set<string>();
  for (const graph of graphs as { modules?: { dependencies?: unknown[] }[] }[]) {
    for (const module of graph.modules ?? []) {
      for (const dep of (module.dependencies ?? []) as Record<string, { specifier?: string }>[]) {
        for (const side of [dep.code, dep.type]) {
          const s = side?.specifier;
          if (s?.startsWith("npm:")) found.add(packageSpecifier(s));
        }
      }
    }
  }
  return [...found].sort();
}

/**
 * `dev` cut down to `specifiers` (those it has) and the packages they need, transitively; the
 * dependency lists written the way Deno writes them (a bare name when the lock holds one version
 * of it). Throws on a specifier `dev` does not lock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeLock } from "./runtime_lock.ts";
 *
 * const dev = {
 *   version: "5",
 *   specifiers: { "npm:a@1.0.0": "1.0.0", "npm:t@2.0.0": "2.0.0" },
 *   npm: {
 *     "a@1.0.0": { dependencies: ["b@1.0.0"] },
 *     "b@1.0.0": {},
 *     "b@2.0.0": {},
 *     "t@2.0.0": { dependencies: ["b@2.0.0"] },
 *   },
 * };
 * assert.deepEqual(runtimeLock(dev, ["npm:a@1.0.0"]), {
 *   version: "5",
 *   specifiers: { "npm:a@1.0.0": "1.0.0" },
 *   npm: { "a@1.0.0": { dependencies: ["b"] }, "b@1.0.0": {} },
 * });
 * assert.throws(() => runtimeLock(dev, ["npm:c@1.0.0"]), /not in the lock/);
 * ```
 */
export function runtimeLock(dev: Lockfile, specifiers: Iterable<string>): Lockfile {
  const packages = dev.npm ?? {};
  const byName = new Map<string, string[]>();
  for (const id of Object.keys(packages)) {
    byName.set(nameOf(id), [...byName.get(nameOf(id)) ?? [], id]);
  }
  /** The package a dependency entry (`name`, `name@version` or a full id) means. */
  const resolve = (ref: string): string => {
    if (ref in packages) return ref;
    const candidates = (byName.get(nameOf(ref)) ?? []).filter((id) =>
      ref === nameOf(ref) || id === ref || id.startsWith(`${ref}_`)
    );
    if (candidates.length !== 1) throw new Error(`${ref}: ${candidates.length} packages match`);
    return candidates[0];
  };
  const kept: Record<string, string> = {};
  const needed = new Set<string>();
  const visit = (id: string) => {
    if (needed.has(id)) return;
    needed.add(id);
    const entry = packages[id];
    for (const ref of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) {
      visit(resolve(ref));
    }
  };
  for (const specifier of specifiers) {
    const version = dev.specifiers?.[specifier];
    if (version === undefined) throw new Error(`${specifier} is not in the lock`);
    kept[specifier] = version;
    visit(resolve(`${nameOf(specifier.slice("npm:".length))}@${version}`));
  }
  const versions = new Map<string, number>();
  for (const id of needed) versions.set(nameOf(id), (versions.get(nameOf(id)) ?? 0) + 1);
  /** As Deno writes a reference: the bare name when one version of it is left. */
  const write = (ref: string) => {
    const id = resolve(ref);
    return versions.get(nameOf(id)) === 1 ? nameOf(id) : ref;
  };
  const npm: NonNullable<Lockfile["npm"]> = {};
  for (const id of Object.keys(packages).filter((id) => needed.has(id))) {
    const entry = { ...packages[id] };
    if (entry.dependencies) entry.dependencies = entry.dependencies.map(write);
    if (entry.optionalDependencies) {
      entry.optionalDependencies = entry.optionalDependencies.map(write);
    }
    npm[id] = entry;
  }
  const sorted = Object.fromEntries(
    Object.keys(dev.specifiers ?? {}).filter((s) => s in kept).map((s) => [s, kept[s]]),
  );
  const { specifiers: _s, npm: _n, ...rest } = dev;
  const out: Lockfile = { ...rest, specifiers: sorted, npm };
  // Deno writes the keys in this order.
  return Object.fromEntries(
    ["version", "specifiers", "npm", ...Object.keys(rest)].filter((k, i, all) =>
      all.indexOf(k) === i && out[k] !== undefined
    ).map((k) => [k, out[k]]),
  ) as Lockfile;
}

/** The graphs of {@link RUNTIME_ENTRIES}, read by `deno info --json` against `deno.dev.lock`. */
async function runtimeGraphs(root: string): Promise<unknown[]> {
  return await Promise.all(RUNTIME_ENTRIES.map(async (entry) => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--lock=deno.dev.lock", entry],
      cwd: root,
      stdin: "null",
    }).output();
    if (code !== 0) throw new Error(`deno info ${entry}: ${new TextDecoder().decode(stderr)}`);
    return JSON.parse(new TextDecoder().decode(stdout));
  }));
}

/**
 * `deno.lock` as it should be for the repository at `root` (a folder path ending in `/`), as the
 * text this script writes.
 */
export async function expectedRuntimeLock(root: string): Promise<string> {
  const dev: Lockfile = JSON.parse(await Deno.readTextFile(`${root}deno.dev.lock`));
  const lock = runtimeLock(dev, graphSpecifiers(await runtimeGraphs(root)));
  return JSON.stringify(lock, null, 2) + "\n";
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  const expected = await expectedRuntimeLock(root);
  const current = await Deno.readTextFile(`${root}deno.lock`).catch(() => "");
  if (Deno.args.includes("--check")) {
    if (current !== expected) {
      console.error(
        "runtime_lock: deno.lock is not deno.dev.lock cut down to what memo runs; run " +
          "`deno run -A --lock=deno.dev.lock scripts/runtime_lock.ts`",
      );
      Deno.exit(1);
    }
    console.error("runtime_lock: deno.lock matches deno.dev.lock");
  } else {
    await Deno.writeTextFile(`${root}deno.lock`, expected);
    console.error(
      `runtime_lock: wrote deno.lock (${
        Object.keys(JSON.parse(expected).npm).length
      } npm packages)`,
    );
  }
}
