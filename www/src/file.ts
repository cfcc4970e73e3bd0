// Storage 'file': a memory in a file, in Node, Bun and Deno (which pick the same Node entry
// and serve the same `node:fs`; package-runtimes.test.mjs runs it in each). The engine runs on
// this thread over a VFS of its own (src/storage/file.rs) whose every file call is one of
// `node:fs`'s synchronous ones, below. Only the Node entry
// (node.ts) loads this module, so browsers' bundles never meet `node:fs`.
//
// Durability is the OPFS storage's (www/README.md, "Storage 'file'"): WAL with `synchronous =
// NORMAL`, so a write is in the operating system's hands (`writeSync`) before its promise
// resolves and survives the process being killed; about a second after writes a checkpoint
// syncs the log and the database (`fsyncSync`), after which it survives a power loss too.
//
// One writer per file. Node has no `flock`, and the VFS cannot reach SQLite's own OS locks,
// so a lock file beside the database, `<path>-lock`, says who holds it: created with
// `O_EXCL` (flag 'wx'), which the operating system grants one caller, holding the pid and the
// host name. Another opener, in this process or another, finds it and fails with
// `already_open` (field `path`) while that process lives (`process.kill(pid, 0)`); the lock
// of a process that is gone (killed, or ended without `close()`) is taken over, when the
// runtime can tell it is gone (Deno only with `--allow-run`). Limits: a
// lock written on another host (a network drive) cannot be checked and counts as held, and
// so does one whose pid a new process took after a crash (delete the lock file then); and a
// takeover of a dead process's lock moves the stale file aside and checks it was the one it
// read, which fails only if a third opener creates a lock in the instant between two others'
// takeovers.

import {
  closeSync, constants, existsSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Memory } from './associative_memory.js';
import type { FileSystem, Memory as NodeMemory } from './associative_memory_node.js';
import { threadBackend, WRITES, type SyncBackend } from './backend.js';
import { engine } from './engine.js';
import { memoryError } from './errors.js';
import type { Key } from './rpc.js';

/** How long after a write its checkpoint (the sync that makes it survive a power loss) runs at most. */
const CHECKPOINT_AFTER_MS = 1000;

/** How old an empty lock file (its holder died between creating and writing it) is before it is taken over. */
const EMPTY_LOCK_MS = 10_000;

/** `path` removed; one already absent is no error. */
function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** `node:fs`'s synchronous calls, as the engine's file VFS makes them. */
export const nodeFileSystem: FileSystem = {
  open: (path, create) => openSync(path, constants.O_RDWR | (create ? constants.O_CREAT : 0), 0o644),
  read(file, bytes, offset) {
    let done = 0;
    for (let n = -1; n !== 0 && done < bytes.length; done += n) n = readSync(file, bytes, done, bytes.length - done, offset + done);
    return done;
  },
  write(file, bytes, offset) {
    for (let done = 0; done < bytes.length;) done += writeSync(file, bytes, done, bytes.length - done, offset + done);
  },
  sync: (file) => fsyncSync(file),
  truncate: (file, size) => ftruncateSync(file, size),
  size: (file) => fstatSync(file).size,
  close: (file) => closeSync(file),
  exists: (path) => existsSync(path),
  delete: remove,
  syncDirectory(path) {
    // Windows opens no directory to sync (its file systems journal their names).
    if (process.platform === 'win32') return;
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  },
};

/** A lock file's text, or null when there is none. */
function lockText(lock: string): string | null {
  try {
    return readFileSync(lock, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Whether process `pid` of this host is gone: null when it lives (one of another user's
 * counts: EPERM), or the reason it cannot be known. Only "no such process" (ESRCH) says it is
 * gone: a runtime that may not signal (Deno without `--allow-run` refuses every `kill`, with
 * no `code`) cannot tell, and then the lock counts as held, since taking over a living
 * writer's file would corrupt it, while a held lock costs only its deletion.
 */
function gone(pid: number): boolean | string {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    const { code, message } = e as NodeJS.ErrnoException;
    if (code === 'ESRCH') return true;
    return code === 'EPERM' ? false : message;
  }
}

/**
 * Who holds the lock whose text is `text`, in words, or null when nobody does any more: its
 * process on this host (`here`) is gone, or it is empty and old.
 */
function holder(lock: string, text: string, here: string): string | null {
  let held: { pid?: unknown; host?: unknown } = {};
  try {
    held = JSON.parse(text) as typeof held;
  } catch {
    // empty: its holder is writing it, or died before it did
  }
  const { pid, host } = held;
  if (typeof pid !== 'number' || typeof host !== 'string') {
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      // gone since: let go
      return null;
    }
    return age > EMPTY_LOCK_MS ? null : 'another process';
  }
  if (host !== here) return `process ${pid} on ${host}`;
  if (pid === process.pid) return 'this process';
  const dead = gone(pid);
  if (dead === true) return null;
  return dead === false ? `process ${pid}` : `process ${pid} (whether it lives cannot be checked here: ${dead})`;
}

/**
 * Takes the lock file of the memory at `path` (absolute), or throws `already_open` (field
 * `path`) naming its holder, or `storage` (field `path`) when the lock file cannot be made (no
 * such directory, no permission); returns what lets it go.
 */
export function takeLock(path: string): () => void {
  const lock = `${path}-lock`;
  let host: string;
  try {
    host = hostname();
  } catch (e) {
    // Deno without `--allow-sys=hostname`
    throw memoryError('storage', `cannot name this host in the lock file beside the memory: ${(e as Error).message}`, 'path');
  }
  const mine = JSON.stringify({ pid: process.pid, host });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
      return () => {
        if (lockText(lock) === mine) remove(lock);
      };
    } catch (e) {
      const { code, message } = e as NodeJS.ErrnoException;
      if (code !== 'EEXIST') throw memoryError('storage', `cannot make the lock file beside the memory: ${message}`, 'path');
    }
    const text = lockText(lock);
    if (text === null) continue;
    const who = holder(lock, text, host);
    if (who !== null) {
      const what = who === 'this process' ? 'close that memory first' : `close it there first (if that process is gone, delete ${lock})`;
      throw memoryError('already_open', `the memory file ${path} is open in ${who}; ${what}`, 'path');
    }
    // Taken over: moved aside, then checked to be the lock read above. Another opener may
    // have taken it over and made its own meanwhile: that one goes back.
    const aside = `${lock}.${process.pid}`;
    try {
      renameSync(lock, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if (lockText(aside) !== text) {
      try {
        linkSync(aside, lock);
      } catch {
        // a lock made since holds
      }
    }
    remove(aside);
  }
  throw memoryError('already_open', `the memory file ${path} is being opened by other processes at once; try again`, 'path');
}

/**
 * The memory in the file at `path` (absolute), on this thread: its lock file taken first and
 * let go when it closes (or fails to open), a checkpoint about a second after writes (its
 * timer keeps no process alive).
 */
export function fileBackend(path: string, clock?: () => number, key?: Key): SyncBackend {
  const release = takeLock(path);
  let memory: ReturnType<typeof threadBackend>;
  try {
    // the Node entry's glue, whose module has storage 'file' (the size-built one has not)
    const glue = engine() as unknown as { Memory: typeof NodeMemory };
    memory = threadBackend('openFile', () => glue.Memory.openFile(path, nodeFileSystem, clock, key) as unknown as Memory);
  } catch (e) {
    release();
    throw e;
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  const wrote = <T>(result: Promise<T>): Promise<T> => {
    if (timer === null) {
      timer = setTimeout(() => {
        timer = null;
        // a failure here is met again by the next write, or by close
        memory.checkpoint().catch(() => {});
      }, CHECKPOINT_AFTER_MS);
      timer.unref();
    }
    return result;
  };
  return {
    call: (tool, options) => (WRITES.has(tool) ? wrote(memory.call(tool, options)) : memory.call(tool, options)),
    storeMany: (options, onProgress) => wrote(memory.storeMany(options, onProgress)),
    exportBytes: (decrypt) => memory.exportBytes(decrypt),
    importBytes: (bytes, key, decrypt) => wrote(memory.importBytes(bytes, key, decrypt)),
    rekey: (key) => wrote(memory.rekey(key)),
    check: () => memory.check(),
    syncStart: (device) => wrote(memory.syncStart(device)),
    syncStatus: () => memory.syncStatus(),
    syncPending: (after) => memory.syncPending(after),
    syncApply: (entries) => wrote(memory.syncApply(entries)),
    syncSnapshot: () => memory.syncSnapshot(),
    syncJoin: (bytes, position, device, logged) => wrote(memory.syncJoin(bytes, position, device, logged)),
    close: async () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      try {
        await memory.close();
      } finally {
        release();
      }
    },
  };
}
