// Replays a conformance bench workload through any async `call(tool, args)`: the same rules
// as the reference driver, `cargo bench --bench ops` and node-bench.mjs (fixed clock from
// clock.start, +step_seconds per write op, a store without timestamp stamped with the
// clock's now, ops in file order, once, cold). No Node APIs: it runs in Node, a browser
// page and workerd alike (package-bench.mjs).

/** Op kind → tool name, as in the reference driver's OP_TOOL. */
export const OP_TOOL = {
  store: 'store', episode: 'archive_episode', declare: 'declare_associations',
  retract: 'declare_associations', reconstruct: 'reconstruct', traverse: 'traverse',
  recall: 'recall', get_contents: 'get_contents',
};
export const WRITES = new Set(['store', 'episode', 'declare', 'retract']);

export function parseIso(text) {
  const ms = Date.parse(text.trim());
  if (Number.isNaN(ms)) throw new Error(`bad ISO time ${JSON.stringify(text)}`);
  return ms;
}

/** Epoch ms → YYYY-MM-DDTHH:MM:SS+00:00 (.ffffff when fractional, as Python writes it). */
export function formatIso(ms) {
  const s = new Date(ms).toISOString();
  const frac = ms % 1000;
  return frac === 0 ? `${s.slice(0, 19)}+00:00` : `${s.slice(0, 19)}.${String(frac * 1000).padStart(6, '0')}+00:00`;
}

/** Nearest-rank percentile (the rule of the reference timing wrapper and ops.rs). */
export function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}

/** n, mean, p50, p95, max, total (ms) of one op kind, or why it was skipped. */
export function summary(k) {
  if (k.skipped) return { skipped: k.skipped };
  const s = [...k.times].sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, errors: k.errors };
  const total = s.reduce((a, b) => a + b, 0);
  const out = { n: s.length, mean_ms: total / s.length, p50_ms: percentile(s, 50), p95_ms: percentile(s, 95), max_ms: s[s.length - 1], total_ms: total, errors: k.errors };
  if (k.firstError) out.first_error = k.firstError;
  return out;
}

/** The clock the replay drives; pass `clock.now` as the memory's clock. */
export function workloadClock(workload) {
  return { ms: parseIso(workload.clock?.start ?? '2026-01-01T00:00:00+00:00'), now() { return this.ms; } };
}

/**
 * Runs every op of `workload` through `call` (sync or async), timing each with `timer`
 * (default performance.now). Returns per-kind summaries and the whole replay's time.
 */
export async function replay(call, workload, clock, timer = () => performance.now()) {
  const agent = workload.agent_id ?? 'agent';
  const stepMs = Math.round((workload.clock?.step_seconds ?? 3600) * 1000);
  const kinds = new Map();
  const wall0 = timer();
  for (const op of workload.ops) {
    const kind = op.op;
    if (!kinds.has(kind)) kinds.set(kind, { times: [], errors: 0, firstError: null, skipped: null });
    const entry = kinds.get(kind);
    if (kind === 'clock') {
      if (op.set) clock.ms = parseIso(op.set);
      clock.ms += Math.round((op.advance ?? 0) * 1000);
      continue;
    }
    const tool = OP_TOOL[kind];
    if (!tool) { entry.skipped ??= `op kind ${JSON.stringify(kind)} not replayed by this bench`; continue; }
    if (entry.skipped) { if (WRITES.has(kind)) clock.ms += stepMs; continue; }
    const args = {};
    for (const [k, v] of Object.entries(op)) if (k !== 'op') args[k] = v;
    if (kind === 'retract' && !('retract' in args)) {
      const r = {};
      for (const k of ['relations', 'mentions']) if (k in args) { r[k] = args[k]; delete args[k]; }
      args.retract = r;
    }
    args.agent_id ??= agent;
    if (kind === 'store') {
      if (!args.timestamp) args.timestamp = formatIso(clock.ms);
      else clock.ms = Math.max(clock.ms, parseIso(args.timestamp));
    }
    const t0 = timer();
    let failure = null;
    try {
      const r = call(tool, args);
      if (r !== null && typeof r?.then === 'function') await r; // a sync engine is not awaited
    } catch (e) { failure = e; }
    const ms = timer() - t0;
    if (failure && (failure.code === 'unsupported' || failure.code === 'unknown_tool')) {
      entry.skipped = `${failure.code}: ${failure.message}`;
    } else {
      entry.times.push(ms);
      if (failure) { entry.errors += 1; entry.firstError ??= `op ${kind}: ${failure.code ?? '(no code)'}: ${failure.message ?? failure}`; }
    }
    if (WRITES.has(kind)) clock.ms += stepMs;
  }
  const ops = {};
  for (const [kind, k] of kinds) ops[kind] = summary(k);
  return { ops, wall_ms: timer() - wall0 };
}
