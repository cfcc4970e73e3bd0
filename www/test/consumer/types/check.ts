// Uses every method and reads every response field, so the package's types are checked,
// not only emitted. Lines marked @ts-expect-error must stay errors.
import { AgentMemory, AssociativeMemory, AssociativeMemoryError, init, isMemoryError, openMemory } from 'associative-memory';
import type {
  Claim, ContentItem, ListedMemory, DeclareReport, ErrorCode, ListedEntity, OpenOptions, RecalledMessage,
  ReconstructedItem, AnthropicToolDefinition, McpToolDefinition, ToolSelection, TraverseEntity, TraverseRelation,
  SyncErrorEvent, SyncOptions, SyncStatus,
} from 'associative-memory';

const str = (s: string) => s;
const num = (n: number) => n;
const bool = (b: boolean) => b;
const opt = <T>(v: T | undefined) => v;

function report(r: DeclareReport) {
  r.entities.forEach((e) => { num(e.id); str(e.name); bool(e.created); });
  num(r.mentions); r.relations.map(num); r.dropped.forEach((d) => { str(d.item); str(d.reason); });
}
function entity(e: TraverseEntity) { num(e.id); str(e.name); num(e.hops); opt(e.aliases)?.map(str); opt(e.mentions)?.map(str); opt(e.mentions_omitted); }
function relation(r: TraverseRelation) {
  num(r.id); num(r.subject); str(r.predicate); num(r.object); const by: 'agent' | 'operator' = r.declared_by; str(by); str(r.declared_at); opt(r.anchor_ref);
}
function content(c: ContentItem) { str(c.ref); str(c.content); opt(c.source.type); opt(c.source.id); opt(c.source.name); str(c.timestamp); opt(c.metadata); }
function listed(e: ListedEntity) {
  num(e.id); str(e.name); e.aliases.map(str); num(e.mentions); num(e.relations); str(e.declared_by); str(e.created_at); str(e.project_id); str(e.channel);
}
function message(m: RecalledMessage) { str(m.ref); str(m.content); opt(m.source.type); str(m.timestamp); str(m.match_reason.signal); opt(m.match_reason.score); }
function claim(c: Claim) { str(c.ref); str(c.as_of); opt(c.why); opt(c.hops); opt(c.path)?.map(num); num(c.via_entity ?? 0); opt(c.roles)?.forEach((r) => { str(r.ref); str(r.role); }); }
function item(i: ReconstructedItem) {
  str(i.content); str(i.head_ref); i.claims.forEach(claim); opt(i.claims_omitted); i.ranges.forEach(([a, b]) => num(a + b));
  opt(i.excerpts)?.forEach((x) => { str(x.ref); str(x.content); }); opt(i.independence_reason);
}
function listedMemory(m: ListedMemory) {
  num(m.id); str(m.content); opt(m.truncated); str(m.timestamp); str(m.created_at); opt(m.source.type); str(m.project_id); str(m.channel); opt(m.metadata);
  // @ts-expect-error: metadata is absent when the memory has none
  const always: Record<string, unknown> = m.metadata; opt(always);
}
function tool(t: AnthropicToolDefinition) { str(t.name); str(t.description); const o: 'object' = t.input_schema.type; str(o); opt(t.input_schema.properties); opt(t.input_schema.required); }
function mcpTool(t: McpToolDefinition) {
  str(t.name); const o: 'object' = t.outputSchema.type; str(o); str(t.inputSchema.type); str(t.annotations.title);
  bool(t.annotations.readOnlyHint); bool(t.annotations.destructiveHint); bool(t.annotations.idempotentHint); const closed: false = t.annotations.openWorldHint; bool(closed);
  // @ts-expect-error: the Anthropic format's key is not the MCP one
  opt(t.input_schema);
}

async function everything(options: OpenOptions) {
  await init();
  await init(new Uint8Array(0));
  const memory: AssociativeMemory = await openMemory(options);
  const kind: 'memory' | 'opfs' | 'file' | 'remote' | 'durable-object' = memory.storage; str(kind); opt(memory.name);
  const s = await memory.store({ agent_id: 'a', content: 'c', timestamp: '2026-01-01T00:00:00+00:00', source: { type: 'User' }, metadata: { k: 1 }, embedding: [0.1],
    associations: { entities: [{ name: 'E', aliases: ['e'] }], relations: [{ subject: 'E', predicate: 'p', object: 'F' }] }, project_id: 'p', channel: 'c' });
  const ok: true = s.ok; bool(ok); str(s.result); num(s.id); if (s.associations) report(s.associations);
  const ep = await memory.archiveEpisode({ agent_id: 'a', summary: 's', keywords: 'k', history: [{ role: 'user', content: 'hi' }] }); num(ep.episode_id); bool(ep.ok);
  const d = await memory.declareAssociations({ agent_id: 'a', anchor_ref: 'mem:1', retract: { relations: [1], mentions: [{ entity: 1, ref: 'mem:1' }] }, declared_by: 'operator' });
  report(d); str(d.result); bool(d.ok); if (d.retracted) { num(d.retracted.relations); num(d.retracted.mentions); }
  const r = await memory.recall({ agent_id: 'a', query: 'q', query_embedding: [1], limit: 5, deep: true, project_id: '', channel: '' });
  r.messages.forEach(message);
  const rc = await memory.reconstruct({ agent_id: 'a', query: 'q', count: 1, top_k: 2, max_hops: 3, max_evidence: 4, budget: 5, deep: false, trace: true });
  rc.items.forEach(item); num(rc.effective_count); num(rc.returned_count); opt(rc.shortfall_reason); opt(rc.bounds?.omitted); opt(rc.trace);
  const t = await memory.traverse({ agent_id: 'a', entity: 'E', max_hops: 2, limit: 3, source_id: 'x' });
  str(t.entity); num(t.max_hops); num(t.limit); t.entities.forEach(entity); t.relations.forEach(relation); opt(t.entities_omitted); opt(t.bounds?.omitted.map(str)); opt(t.reason);
  const g = await memory.getContents({ agent_id: 'a', refs: ['mem:1'] }); g.items.forEach(content); g.missing.map(str); num(g.count);
  for (const del of [await memory.deleteMemory({ agent_id: 'a', memory_id: 1 }), await memory.deleteEpisode({ agent_id: 'a', episode_id: 1 }), await memory.deleteEntity({ agent_id: 'a', entity_id: 1 })]) {
    bool(del.ok); num(del.deleted_id);
  }
  const l = await memory.listEntities({ agent_id: 'a', query: 'q', offset: 0, limit: 10 }); l.entities.forEach(listed); num(l.total); opt(l.next_offset);
  const bytes: Uint8Array = await memory.export(); await memory.import(bytes);
  memory.tools().forEach(tool);
  const reads: ToolSelection = { readOnly: true, exclude: ['get_contents'] };
  memory.tools({ ...reads, format: 'mcp' }).forEach(mcpTool);
  memory.tools({ only: ['recall'], format: 'openai' }).forEach((t) => str(t.function.name));
  // @ts-expect-error: a selection names tools, not other strings
  memory.tools({ only: ['forget_everything'] });
  (await memory.callTool('list_memories', { agent_id: 'a', max_content: 0 }, reads)).memories.forEach(listedMemory);
  const walked = await memory.callTool('traverse', { agent_id: 'a', entity: 'E' }); walked.entities.forEach(entity);
  const named: string = 'recall'; const json: unknown = await memory.callTool(named, {}); opt(json);
  // @ts-expect-error: a known tool's response is typed, not unknown
  str((await memory.callTool('recall', { agent_id: 'a', query: 'q' })).messages);
  const page = await memory.listMemories({ agent_id: 'a' }); page.memories.forEach(listedMemory);
  await memory.store({ agent_id: 'a', content: 'c', embedding: new Float32Array([0.1, 0.2]) });
  await memory.recall({ agent_id: 'a', query: 'q', query_embedding: new Float32Array(2) });
  const any: unknown = await memory.call('list_entities', { agent_id: 'a' }); opt(any);

  const bot: AgentMemory = memory.agent('a', { project_id: 'p', channel: 'c' });
  str(bot.agentId); opt(bot.scope.project_id);
  num((await bot.store({ content: 'c' })).id);
  num((await bot.archiveEpisode({ summary: 's' })).episode_id);
  num((await bot.declareAssociations({ associations: {} })).mentions);
  (await bot.recall({ query: 'q' })).messages.forEach(message);
  (await bot.reconstruct({ query: 'q' })).items.forEach(item);
  (await bot.traverse({ entity: 'E' })).entities.forEach(entity);
  (await bot.getContents({ refs: ['mem:1'] })).items.forEach(content);
  num((await bot.deleteMemory({ memory_id: 1 })).deleted_id);
  num((await bot.deleteEpisode({ episode_id: 1 })).deleted_id);
  num((await bot.deleteEntity({ entity_id: 1 })).deleted_id);
  (await bot.listEntities()).entities.forEach(listed);
  bot.tools().forEach(tool); (await bot.callTool('recall', { query: 'q' })).messages.forEach(message);
  bot.tools({ readOnly: true, format: 'mcp' }).forEach(mcpTool); (await bot.callTool('list_entities', {}, { only: ['list_entities'] })).entities.forEach(listed);
  await memory.close();

  try { await memory.store({ agent_id: 'a', content: 'c' }); } catch (e) {
    if (!(e instanceof AssociativeMemoryError)) throw e;
    const code: ErrorCode = e.code; str(code); opt(e.field); str(e.message);
    if (e.code === 'already_open' || e.code === 'opfs_unavailable' || e.code === 'worker_crashed' || e.code === 'closed') str(e.name);
  }
  try { await memory.recall({ agent_id: 'a', query: 'q' }); } catch (e) {
    // @ts-expect-error: an unknown thrown value has no code until it is checked
    str(e.code);
    if (isMemoryError(e)) str(e.code);
  }

  // @ts-expect-error: traverse needs an entity
  await memory.traverse({ agent_id: 'a' });
  // @ts-expect-error: store needs content
  await memory.store({ agent_id: 'a' });
  // @ts-expect-error: a scoped handle fills agent_id itself
  await bot.store({ agent_id: 'b', content: 'c' });
  // @ts-expect-error: storage is 'memory', 'opfs', 'file' or 'remote'
  await openMemory({ storage: 'disk' });
  const file = await openMemory({ storage: 'file', path: 'memory.sqlite3', key: 'passphrase' });
  const elsewhere: ErrorCode = 'file_unavailable'; str(elsewhere); str(file.storage);
  // @ts-expect-error: a file's path is a string
  await openMemory({ storage: 'file', path: 7 });
  const agents = await memory.listAgents();
  agents.agents.forEach((a) => { str(a.agent_id); num(a.memories); num(a.episodes); num(a.entities); num(a.relations); });
  num(agents.total); opt(agents.next_offset);
  // @ts-expect-error: an agent handle cannot list the other agents
  await bot.listAgents();
  const remote = await openMemory({ storage: 'remote', url: 'https://example.com/m/team', token: 'am_x' });
  const hosted: ErrorCode = 'unauthorized'; str(hosted); str(remote.storage);
  // sync: the global WebSocket's constructor fits the option; status, events, now()
  const synced = await openMemory({ key: new Uint8Array(32), sync: { url: 'wss://example.com/r/notes/ws', memory: 'notes', snapshotEvery: 100, WebSocket } });
  const status: SyncStatus | undefined = synced.sync?.status; opt(status);
  synced.sync?.addEventListener('error', (e) => { const code: ErrorCode = (e as SyncErrorEvent).error.code; str(code); });
  await synced.sync?.now(); opt(synced.sync?.device); num(synced.sync?.position ?? 0);
  const syncOptions: SyncOptions = { url: new URL('wss://example.com/r/notes/ws'), memory: 'notes' }; opt(syncOptions);
  // @ts-expect-error: the sync id is a string
  await openMemory({ key: 'k', sync: { url: 'wss://example.com', memory: 3 } });
  // @ts-expect-error: responses are typed, not any
  str(s.id);
  // @ts-expect-error: no such error code
  const wrong: ErrorCode = 'oops'; str(wrong);
}
everything({ storage: 'opfs', name: 'n', clock: () => 0, embed: async (texts) => texts.map(() => new Float32Array(3)) });
everything({ embed: (texts) => texts.map(() => [1, 2]) });
