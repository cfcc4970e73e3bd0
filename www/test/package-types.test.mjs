// The package's types as a strict TypeScript user sees them: `tsc --noEmit --strict` on a
// consumer file that calls every method and reads every response field, with
// @ts-expect-error lines that must stay errors (www/test/consumer/types/check.ts).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CONSUMER } from './pack.mjs';

it('type-checks a strict consumer that uses every method and response field', () => {
  const tsc = createRequire(join(CONSUMER, 'index.js')).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', join(CONSUMER, 'types')], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc:\n${run.stdout}${run.stderr}`);
});
