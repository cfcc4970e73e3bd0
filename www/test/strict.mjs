// What OpenAI's strict mode asks of a tool's schema, as the tests that send strict schemas
// (package-formats, package-adapters) check it.
import assert from 'node:assert/strict';

/** Every object of a strict-mode schema: closed, all properties required, no keyword strict mode refuses. */
export function assertStrict(schema, path) {
  if (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'))) {
    assert.equal(schema.additionalProperties, false, `${path}: closed`);
    assert.deepEqual(schema.required, Object.keys(schema.properties), `${path}: every property required`);
    for (const [name, p] of Object.entries(schema.properties)) assertStrict(p, `${path}.${name}`);
  }
  if (schema.items) assertStrict(schema.items, `${path}[]`);
  for (const keyword of ['minLength', 'maxLength', 'default', '$ref']) assert.ok(!(keyword in schema), `${path}: ${keyword}`);
}
