// One script, run by Node, Bun and Deno from the consumer project (package-runtimes.test.mjs):
// it imports the installed package by its name, as a user's code does, so each runtime
// resolves the package's `exports` itself. Every answer is one JSON line on stdout; the
// clock is fixed, so the lines of two runtimes given the same calls are the same bytes.
//
//   <runtime> child.mjs write <path|memory> [key]   which entry, stores, recalls, a second open here, close
//   <runtime> child.mjs read <path> [key]           opens, check(), lists and recalls what write stored, close
//   <runtime> child.mjs hold <path> [key]           opens and holds the file until its stdin ends
//   <runtime> child.mjs open <path> [key]           opens (or says why not) and closes

import { openMemory } from 'associative-memory';

/** One line to the parent. */
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
/** A clock that does not move: the same stamps in every runtime. */
const clock = () => Date.UTC(2026, 0, 2, 3, 4, 5);

const [mode, where, key] = process.argv.slice(2);
const options = where === 'memory' ? { storage: 'memory', clock, key } : { storage: 'file', path: where, clock, key };
/** An error as the parent compares it (the message names paths and pids, which differ). */
const failure = (e) => ({ error: { name: e.name, code: e.code, field: e.field } });

if (mode === 'write') {
  // the file the runtime took for the package's `.` export: node.js is the only one with storage 'file'
  say({ entry: import.meta.resolve('associative-memory').split('/').pop() });
  const memory = await openMemory(options);
  say({ storage: memory.storage });
  const bot = memory.agent('bot');
  say(await bot.store({
    content: 'Ada Lovelace wrote the first program for the Analytical Engine',
    associations: {
      entities: [{ name: 'Ada Lovelace', type: 'person' }, { name: 'Analytical Engine', type: 'machine' }],
      relations: [{ subject: 'Ada Lovelace', predicate: 'wrote_for', object: 'Analytical Engine' }],
    },
  }));
  say(await bot.store({ content: 'Charles Babbage designed the Analytical Engine', associations: { entities: [{ name: 'Charles Babbage' }, { name: 'Analytical Engine' }] } }));
  say(await bot.storeMany(Array.from({ length: 20 }, (_, i) => ({ content: `note ${i} about the engine's mill and store` }))));
  say(await bot.recall({ query: 'who wrote a program for the engine' }));
  say(await bot.listEntities({}));
  if (where !== 'memory') {
    try {
      await openMemory(options);
      say({ second: 'opened' });
    } catch (e) {
      say({ second: failure(e) });
    }
  }
  say(await memory.check());
  await memory.close();
  say({ closed: true });
} else if (mode === 'read') {
  const memory = await openMemory(options);
  const bot = memory.agent('bot');
  say(await memory.check());
  say(await bot.listMemories({ limit: 5 }));
  say(await bot.recall({ query: 'Babbage' }));
  await memory.close();
  say({ closed: true });
} else if (mode === 'hold') {
  await openMemory(options);
  say({ holding: process.pid });
  // held until the parent closes stdin (then the process ends without close(): its lock stays)
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => process.exit(0));
} else if (mode === 'open') {
  try {
    const memory = await openMemory(options);
    say({ opened: true });
    await memory.close();
  } catch (e) {
    say({ ...failure(e), message: e.message });
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
