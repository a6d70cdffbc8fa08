/**
 * Test helper: starts a throwaway PostgreSQL cluster from Debian's packages
 * (found by `scripts/test_setup.ts`) in a temporary folder, on a free loopback
 * port, with trust authentication and no fsync, and removes it again. It never
 * touches the system cluster. PostgreSQL refuses to run as root, so when the
 * tests run as root, `initdb`, `pg_ctl` and the server run as the `postgres` OS
 * user (via `runuser`), which owns the folder.
 *
 * `initdb` is the slow part of a start (about 2 s of a loaded machine's CPU),
 * and every cluster of a run would make the same one: it runs once per
 * PostgreSQL version and user into a template folder in the OS temp folder
 * (`memo-postgres-template-…`, about 40 MB, kept like a cache), and each
 * cluster starts from a copy of it.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { findPostgresBin } from "../scripts/test_setup.ts";

/** A running throwaway PostgreSQL cluster. */
export interface Postgres {
  /** Connection URL of the `memo` database: `postgres://postgres@127.0.0.1:<port>/memo`. */
  url: string;
  /** The loopback TCP port the server listens on. */
  port: number;
  /** Stops the server (fast shutdown) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server (fast shutdown) and keeps its folder: a database outage. */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port with the same data. */
  resume(): Promise<void>;
}

/** The OS user the server runs as when the tests run as root. */
const OS_USER = "postgres";
/** How long the server may take to accept connections. */
const START_TIMEOUT_S = 15;
/** `initdb`'s options: trust on loopback, UTF-8, the C locale, no fsync. */
const INITDB_OPTIONS = ["-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"];

/**
 * Starts a cluster and creates its `memo` database. Fails with the command to
 * run when PostgreSQL is missing, and with the server's log when it does not
 * start within 15 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startPostgres } from "./_postgres.ts";
 *
 * const pg = await startPostgres();
 * try {
 *   assert.equal(pg.url, `postgres://postgres@127.0.0.1:${pg.port}/memo`);
 *   const conn = await Deno.connect({ hostname: "127.0.0.1", port: pg.port });
 *   conn.close(); // the server accepts connections
 * } finally {
 *   await pg.stop();
 * }
 * ```
 */
export async function startPostgres(): Promise<Postgres> {
  const bin = await findPostgresBin();
  if (!bin) {
    throw new Error(
      "PostgreSQL is missing: run `deno run -A scripts/test_setup.ts` " +
        "(or `apt-get install -y postgresql`) before the tests",
    );
  }
  const asRoot = Deno.uid() === 0;
  const dir = await Deno.makeTempDir({ prefix: "memo-postgres-" });
  const data = `${dir}/data`;
  const log = `${dir}/server.log`;
  let started = false;
  try {
    if (asRoot) await chownToPostgres(dir);
    await run(asRoot, dir, "cp", ["-a", await template(bin, asRoot), data]);
    const startServer = (port: number) =>
      pg(bin, asRoot, dir, "pg_ctl", [
        "-D",
        data,
        "-l",
        log,
        "-w",
        "-t",
        String(START_TIMEOUT_S),
        "-o",
        `-k ${dir} -h 127.0.0.1 -p ${port} -c fsync=off -c synchronous_commit=off ` +
        "-c full_page_writes=off",
        "start",
      ]);
    // A free port can be taken between choosing it and the server binding it
    // (two clusters starting at once): try a few.
    let port = 0;
    let lastError: unknown;
    for (let attempt = 0; attempt < 3 && !started; attempt++) {
      port = freePort();
      try {
        await startServer(port);
        started = true;
      } catch (e) {
        lastError = e;
        // pg_ctl may have timed out with a server still starting: stop it.
        await pg(bin, asRoot, dir, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
          .catch(() => {});
      }
    }
    if (!started) {
      const text = await Deno.readTextFile(log).catch(() => "");
      throw new Error(
        `PostgreSQL did not start: ${(lastError as Error).message}\n${text.slice(-2000)}`,
      );
    }
    await pg(bin, asRoot, dir, "psql", [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "postgres",
      "-d",
      "postgres",
      "-v",
      "ON_ERROR_STOP=1",
      "-q",
      "-c",
      "CREATE DATABASE memo",
    ]);
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/memo`,
      port,
      stop() {
        stopped ??= (async () => {
          await pg(bin, asRoot, dir, "pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
            .catch(() => {});
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        })();
        return stopped;
      },
      halt: () => pg(bin, asRoot, dir, "pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
      resume: () => startServer(port),
    };
  } catch (e) {
    if (started) {
      await pg(bin, asRoot, dir, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        .catch(() => {});
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
}

/**
 * The folder of a cluster made by `initdb` with {@linkcode INITDB_OPTIONS}
 * for this PostgreSQL and this user, made on first use. Two processes that
 * make it at once each run `initdb` in a folder of their own and move it in
 * place; the second move fails, and that one's folder is removed.
 */
async function template(bin: string, asRoot: boolean): Promise<string> {
  const key = createHash("sha256")
    .update(JSON.stringify([bin, INITDB_OPTIONS, asRoot ? OS_USER : Deno.uid()]))
    .digest("hex")
    .slice(0, 12);
  const path = join(tmpdir(), `memo-postgres-template-${basename(dirname(bin))}-${key}`);
  if (await Deno.stat(join(path, "PG_VERSION")).then(() => true, () => false)) return path;
  const building = await Deno.makeTempDir({ prefix: "memo-postgres-template-new-" });
  try {
    if (asRoot) await chownToPostgres(building);
    await pg(bin, asRoot, building, "initdb", ["-D", `${building}/data`, ...INITDB_OPTIONS]);
    await Deno.rename(`${building}/data`, path).catch(() => {}); // another process was first
  } finally {
    await Deno.remove(building, { recursive: true }).catch(() => {});
  }
  return path;
}

/** Runs one of PostgreSQL's programs, as `postgres` when we are root. */
function pg(
  bin: string,
  asRoot: boolean,
  cwd: string,
  program: string,
  args: string[],
): Promise<void> {
  return run(asRoot, cwd, `${bin}/${program}`, args);
}

/** Runs a program, as `postgres` when we are root; fails with its output. */
async function run(asRoot: boolean, cwd: string, path: string, args: string[]): Promise<void> {
  const program = basename(path);
  const [cmd, cmdArgs] = asRoot ? ["runuser", ["-u", OS_USER, "--", path, ...args]] : [path, args];
  const out = await new Deno.Command(cmd, {
    args: cmdArgs,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    throw new Error(`${program} failed (exit ${out.code}): ${text.trim().slice(-2000)}`);
  }
}

async function chownToPostgres(dir: string): Promise<void> {
  const out = await new Deno.Command("id", {
    args: ["-u", OS_USER],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const gid = await new Deno.Command("id", {
    args: ["-g", OS_USER],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success || !gid.success) {
    throw new Error(
      `There is no \`${OS_USER}\` OS user to run PostgreSQL as (root may not): ` +
        "install Debian's `postgresql` package (`deno run -A scripts/test_setup.ts`)",
    );
  }
  const decode = (b: Uint8Array) => Number(new TextDecoder().decode(b).trim());
  await Deno.chown(dir, decode(out.stdout), decode(gid.stdout));
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
