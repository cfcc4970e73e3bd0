// A child process for package-file.test.mjs: the packed package
// (pack.mjs: WWW_TEST_DIR is inherited) on storage 'file', driven by its arguments, telling
// its parent what happened one JSON line at a time on stdout.
//
//   node file-child.mjs store <path> <count>   stores `count` memories, then exits without close()
//   node file-child.mjs hold <path>            opens (or says why not) and holds the file until killed
//   node file-child.mjs crash <path> [key]     stores until killed: single stores (each declaring two
//                                              entities and a relation), then a storeMany of 5,000
//                                              (4 MB) with progress, again and again; every
//                                              acknowledgement is a line

import { importPackage } from './pack.mjs';

/** One line to the parent (stdout is a pipe, written synchronously on POSIX). */
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** The memories a batch stores. */
const BATCH = 5000;
/** What each batched memory says besides its name. */
const FILLER = Array.from({ length: 120 }, (_, i) => `word${i % 40}`).join(' ');

const [mode, path, arg] = process.argv.slice(2);
const { openMemory } = await importPackage();

if (mode === 'store') {
  const memory = await openMemory({ storage: 'file', path });
  for (let k = 0; k < Number(arg); k++) say({ stored: (await memory.store({ agent_id: 'child', content: `from the child ${k}` })).id });
  process.exit(0);
} else if (mode === 'hold') {
  try {
    await openMemory({ storage: 'file', path });
    say({ opened: true });
    setInterval(() => {}, 1 << 30);
  } catch (e) {
    say({ error: { code: e.code, field: e.field, message: e.message } });
  }
} else if (mode === 'crash') {
  const memory = await openMemory({ storage: 'file', path, key: arg });
  const singles = memory.agent('single');
  for (let k = 0, batch = 0; ; batch++) {
    for (const end = k + 20; k < end; k++) {
      const { id } = await singles.store({
        content: `single ${k}`,
        associations: { entities: [{ name: `S${k}a` }, { name: `S${k}b` }], relations: [{ subject: `S${k}a`, predicate: 'links', object: `S${k}b` }] },
      });
      say({ single: k, id });
    }
    say({ batch, started: true });
    // about 4 MB of text: more than SQLite's page cache holds, so pages reach the files before the commit
    const items = Array.from({ length: BATCH }, (_, i) => ({ content: `batch ${batch} item ${i} ${FILLER}` }));
    await memory.agent(`batch-${batch}`).storeMany(items, { onProgress: ({ done }) => say({ batch, done }) });
    say({ batch, stored: true });
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
