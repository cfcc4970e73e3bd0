// The runtimes the package tests run a script in besides this Node: Bun and Deno, the
// repository's devDependencies (`bun`, `deno`: npm installs their binaries from the registry's
// platform packages, @oven/bun-* and @deno/*), each as the command that runs a script and
// the environment it runs in. package-runtimes.test.mjs and package-file.test.mjs use them.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSUMER } from './pack.mjs';

const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

/**
 * Deno's permissions for storage 'file' (www/README.md, "Storage 'file'"): read and write (the
 * package's files, the memory's), the host's name (written in the lock file), run (to ask
 * whether a lock's process lives: `process.kill(pid, 0)`).
 */
export const DENO_ALLOW = ['--allow-read', '--allow-write', '--allow-sys=hostname', '--allow-run'];

/**
 * `deno run` with the permissions `allow`: `--node-modules-dir=manual` takes node_modules as
 * npm installed them (Deno's default beside a package.json, said here); `--no-remote`:
 * nothing is fetched.
 */
export const deno = (allow) => [join(BIN, 'deno'), 'run', '--no-prompt', '--no-remote', '--node-modules-dir=manual', ...allow];

/** The command running a script, in each runtime. */
export const RUNTIMES = {
  node: [process.execPath],
  bun: [join(BIN, 'bun')],
  deno: deno(DENO_ALLOW),
};

/** The environment of a script in any of them. */
export const ENV = {
  ...process.env,
  NO_COLOR: '1',
  // no update check (Deno asks dl.deno.land once a day), no telemetry
  DENO_NO_UPDATE_CHECK: '1',
  DO_NOT_TRACK: '1',
  // Deno's caches in this run's directory, not the user's
  DENO_DIR: join(CONSUMER, '..', 'deno-dir'),
};
