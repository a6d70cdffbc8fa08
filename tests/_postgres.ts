/**
 * Test helper: starts a throwaway PostgreSQL cluster from Debian's packages
 * (found by `scripts/test_setup.ts`) in a temporary folder, on a free loopback
 * port, with trust authentication and no fsync, and removes it again. It never
 * touches the system cluster. PostgreSQL refuses to run as root, so when the
 * tests run as root, `initdb`, `pg_ctl` and the server run as the `postgres` OS
 * user (via `runuser`), which owns the folder.
 *
 * @module
 */

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
    await pg(bin, asRoot, dir, "initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
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

/** Runs one of PostgreSQL's programs, as `postgres` when we are root. */
async function pg(
  bin: string,
  asRoot: boolean,
  cwd: string,
  program: string,
  args: string[],
): Promise<void> {
  const path = `${bin}/${program}`;
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
