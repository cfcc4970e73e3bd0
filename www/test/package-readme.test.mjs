// The README npm shows, as installed: the package carries www/README.md (not the repository's
// README), and everything it points at is in the package: each relative link resolves to a
// file of the installed package, each subpath it imports from resolves through the package's
// `exports`, and each optional peer it names for a subpath is a declared peer dependency.
// Nothing in it reaches outside the package (`../`) or asks for the repository's tools.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSUMER } from './pack.mjs';

const INSTALLED = join(CONSUMER, 'node_modules/associative-memory');
const SOURCE = fileURLToPath(new URL('../README.md', import.meta.url));

/** The markdown text outside fenced code blocks. */
function prose(text) {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.trimStart().startsWith('```')) { fenced = !fenced; return false; }
    return !fenced;
  }).join('\n');
}

describe('the npm README', () => {
  const readme = readFileSync(join(INSTALLED, 'README.md'), 'utf8');

  it('is www/README.md', () => {
    assert.equal(readme, readFileSync(SOURCE, 'utf8'));
  });

  it('links only to files inside the package, or to the web', () => {
    const targets = [...prose(readme).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(targets.length > 0, 'the README has links');
    const relative = targets.filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'));
    assert.ok(relative.length > 0, 'the README links to a file of the package');
    for (const target of relative) {
      assert.ok(!target.startsWith('../') && !target.startsWith('/'), `${target} leaves the package`);
      const path = target.split('#')[0];
      assert.ok(existsSync(join(INSTALLED, path)), `${target}: not in the installed package`);
    }
    for (const target of targets.filter((t) => /^[a-z]+:/.test(t))) assert.match(target, /^https:\/\//, target);
  });

  it('names no repository tool and no path outside the package', () => {
    for (const word of ['make demo', 'make test', '../shared', 'cargo ', 'www/', 'src/', 'BENCHMARKS']) {
      assert.ok(!readme.includes(word), `the README says ${JSON.stringify(word)}, which an npm user does not have`);
    }
    // cpersona is said to be what it is where it first appears, and "the reference" is never bare
    const first = readme.indexOf('cpersona');
    assert.ok(first >= 0 && readme.slice(first, first + 40).includes('(a Python memory server)'), readme.slice(first, first + 40));
    assert.deepEqual([...readme.matchAll(/the reference(?! implementation)/g)].map((m) => readme.slice(m.index, m.index + 40)), []);
  });

  it('imports only subpaths the package exports, and names their peers as declared', () => {
    const requireHere = createRequire(join(CONSUMER, 'index.js'));
    const subpaths = new Set([...readme.matchAll(/'(associative-memory(?:\/[a-z0-9-]+)?)'/g)].map((m) => m[1]));
    assert.ok(subpaths.size >= 5, [...subpaths].join(', '));
    const manifest = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8'));
    for (const subpath of subpaths) {
      const key = subpath === 'associative-memory' ? '.' : `./${subpath.slice('associative-memory/'.length)}`;
      assert.ok(manifest.exports[key], `${subpath}: not in the package's exports`);
      if (subpath !== 'associative-memory/durable-object' && subpath !== 'associative-memory/durable-object-mcp') {
        assert.ok(requireHere.resolve(subpath), subpath);
      }
    }
    // the table of subpaths: each peer it says a subpath needs is an optional peer dependency
    const rows = readme.split('\n').filter((l) => /^\| `associative-memory\/[a-z-]+`/.test(l));
    assert.ok(rows.length >= 3, 'the README has a table of subpaths');
    for (const row of rows) {
      const needs = row.split('|').at(-2);
      for (const [, peer] of needs.matchAll(/`((?:@[a-z0-9-]+\/)?[a-z0-9-]+)`/g)) {
        assert.ok(manifest.peerDependencies?.[peer], `${peer} (${row.split('|')[1].trim()}) is not a peer dependency`);
        assert.equal(manifest.peerDependenciesMeta?.[peer]?.optional, true, `${peer} is an optional peer`);
      }
    }
  });
});
