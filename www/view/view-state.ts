// What the graph view holds, apart from how it is drawn: the entities and relations folded
// from the traverse responses the graph is made of, the queries to re-run them, and the
// records marked by a highlight. No DOM and no cytoscape here, so the rules (a node's ring is
// its shortest distance from the start over what is drawn, its mention count the largest
// seen, a relation is kept only while both ends are) read in one place.

import type { Claim, TraverseEntity, TraverseRelation, TraverseResponse } from './types.js';

/** An entity as drawn: the traverse entity plus where it sits. */
export interface ViewEntity extends TraverseEntity {
  /** Hops from the start: the shortest path over the drawn relations, whatever was expanded in what order. */
  ring: number;
  /** Records mentioning it (listed + omitted). */
  mention_count: number;
  /** It was expanded (its one-hop neighbourhood is drawn). */
  expanded: boolean;
}

export type GraphSelection =
  | { kind: 'entity'; entity: ViewEntity }
  | { kind: 'relation'; relation: TraverseRelation; subject: ViewEntity; object: ViewEntity };

/** `2026-12-01` for a midnight instant, else `2026-12-01 09:30` (UTC), from an ISO 8601 instant. */
export function instantText(iso: string): string {
  const m = iso.match(/^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:\d\d(?:\.\d+)?)?/);
  if (!m) return iso;
  return m[2] === '00:00' && !/[1-9]/.test(m[3] ?? '') ? m[1]! : `${m[1]} ${m[2]}`;
}

/** What a relation's end says in a label: "until 2026-12-01", or '' when it has none. */
export const endText = (r: TraverseRelation): string => (r.valid_to ? `until ${instantText(r.valid_to)}` : '');

/** What the last traverse cut, so a page can say what and how much. */
export interface CutReport {
  /** Entities past `limit` in the last traverse. */
  entities_omitted: number;
  /** `bounds.omitted` of the last traverse: 'max_hops' (more lies beyond) and/or 'limit'. */
  omitted: string[];
  /** Entities whose mention list was cut at `limit`, with how many refs were left out. */
  mentions_omitted: { name: string; count: number }[];
}

export interface GraphState {
  /** The entity asked for by `show` (as typed), null before. */
  start: string | null;
  entities: ViewEntity[];
  relations: TraverseRelation[];
  /** The last traverse response (of `show`, `expand` or `refresh`). */
  last: TraverseResponse | null;
  cut: CutReport;
  /** Set when the start entity does not exist (any more). */
  missing?: string;
  /** Entities hidden by `hide` (drawn again by `showHidden`), by id, ascending. */
  hidden: number[];
  /** Relation types (predicates) whose edges the legend has turned off, sorted. */
  hidden_predicates: string[];
  /** The instant the graph's traverses read at (`setAsOf`): an ISO 8601 instant or 'all'; left out for now. */
  as_of?: string;
}

/**
 * A record to mark on the graph: a `reconstruct` claim fits as it is. A claim the walk
 * reached (`path`) lights exactly the relations it followed and the entities along them; a
 * claim retrieval found lights the entities that mention it.
 */
export type RecordMark = Pick<Claim, 'ref' | 'why' | 'hops' | 'path' | 'via_entity'>;

/** An entity or a relation, by id: what a tap, a list button or `select` points at. @internal */
export type Target = { entity: number } | { relation: number };

/** One traverse the graph is made of; `base` is the ring of its start, `expands` the entity it expanded. @internal */
export interface Query { entity: string; max_hops: number; limit: number; base: number; expands?: number }

/** What a highlight lights, by entity and relation id. @internal */
export interface Highlight {
  /** Entities on a walked path or at its end. */
  walked: Set<number>;
  /** Entities mentioning a record retrieval found, and on no walked path. */
  seeds: Set<number>;
  /** Relations a walk followed, among those drawn. */
  relations: Set<number>;
  /** For the entity a path ends at: "predicate · n hops" of each path ending there. */
  paths: Map<number, string[]>;
}

/**
 * The view's state. Each method takes one response as it comes back and leaves the maps
 * ready to draw; the order of calls (one traverse at a time) is view.ts's business.
 * @internal
 */
export class GraphModel {
  readonly entities = new Map<number, ViewEntity>();
  readonly relations = new Map<number, TraverseRelation>();
  queries: Query[] = [];
  /** The response of each query, in the same order: what `collapse` folds again without asking. */
  responses: TraverseResponse[] = [];
  /** Entities the person hid: kept in the maps (a refresh may bring them again), not drawn. */
  readonly hidden = new Set<number>();
  /** Predicates whose edges are not drawn (the legend's toggles); kept across `show`. */
  readonly hiddenPredicates = new Set<string>();
  start: string | null = null;
  missing: string | undefined;
  last: TraverseResponse | null = null;
  marks: RecordMark[] = [];
  /** Every traverse's `as_of` (`setAsOf`); undefined reads the current state. */
  asOf: string | undefined;

  /** Forgets everything (another memory, or `clear`). */
  reset(): void {
    this.queries = [];
    this.responses = [];
    this.hidden.clear();
    this.hiddenPredicates.clear();
    this.start = null;
    this.missing = undefined;
    this.last = null;
    this.marks = [];
    this.entities.clear();
    this.relations.clear();
  }

  /** Takes `show`'s response as the whole graph; false when its entity does not exist. */
  shown(entity: string, q: Query, res: TraverseResponse): boolean {
    this.start = entity;
    this.last = res;
    this.marks = [];
    if (res.reason === 'no_such_entity') {
      this.missing = entity;
      this.queries = [];
      this.responses = [];
      this.entities.clear();
      this.relations.clear();
      return false;
    }
    this.missing = undefined;
    this.queries = [q];
    this.responses = [res];
    this.hidden.clear();
    this.fold([[q, res]]);
    return true;
  }

  /** Adds an expansion's response to what is drawn. */
  expanded(q: Query, res: TraverseResponse): void {
    this.last = res;
    this.queries.push(q);
    this.responses.push(res);
    // Re-fold from what is drawn plus the new response, so rings and mentions stay the minimum / maximum.
    const current: TraverseResponse = {
      entity: '', max_hops: 0, limit: 0,
      entities: [...this.entities.values()].map((v) => ({ ...v, hops: v.ring })),
      relations: [...this.relations.values()],
    };
    this.fold([[{ entity: '', max_hops: 0, limit: 0, base: 0 }, current], [q, res]]);
  }

  /** Rebuilds the graph from re-run queries; those whose entity is gone are dropped. */
  refreshed(results: [Query, TraverseResponse][]): void {
    this.queries = results.map(([q]) => q);
    this.responses = results.map(([, r]) => r);
    this.missing = results.length === 0 && this.start !== null ? this.start : undefined;
    this.fold(results);
  }

  /**
   * Undoes `entity`'s expansion: drops its query, and every later expansion of a node that
   * only it brought in, then folds what is left. What the start's traverse or another
   * expansion reaches stays. Returns the ids of the entities no longer drawn (none when
   * `entity` was not expanded).
   */
  collapsed(entity: number): number[] {
    if (!this.queries.some((q) => q.expands === entity)) return [];
    const kept = new Set<number>();
    const reached = new Set<number>();
    const keep = (i: number) => { kept.add(i); for (const e of this.responses[i]?.entities ?? []) reached.add(e.id); };
    this.queries.forEach((q, i) => { if (q.expands === undefined) keep(i); });
    // An expansion stays while the node it expanded is reached without it (to a fixed point,
    // so a chain of expansions hanging off the collapsed node goes with it).
    for (let grew = true; grew;) {
      grew = false;
      this.queries.forEach((q, i) => {
        if (kept.has(i) || q.expands === undefined || q.expands === entity || !reached.has(q.expands)) return;
        keep(i);
        grew = true;
      });
    }
    const before = [...this.entities.keys()];
    const results = this.queries.map((q, i) => [q, this.responses[i]!] as [Query, TraverseResponse]).filter((_, i) => kept.has(i));
    this.queries = results.map(([q]) => q);
    this.responses = results.map(([, r]) => r);
    this.fold(results);
    const gone = before.filter((id) => !this.entities.has(id));
    for (const id of gone) this.hidden.delete(id);
    return gone;
  }

  /** Folds responses into the entity and relation maps, ring by the query's base. */
  private fold(results: [Query, TraverseResponse][]): void {
    this.entities.forEach((e) => { e.expanded = false; });
    const next = new Map<number, ViewEntity>();
    const nextRelations = new Map<number, TraverseRelation>();
    for (const [q, res] of results) {
      for (const e of res.entities ?? []) {
        const count = (e.mentions?.length ?? 0) + (e.mentions_omitted ?? 0);
        const ring = q.base + e.hops;
        const have = next.get(e.id);
        if (!have) {
          next.set(e.id, { ...e, ring, mention_count: count, expanded: false });
        } else {
          have.ring = Math.min(have.ring, ring);
          have.aliases = e.aliases ?? have.aliases;
          if (count >= have.mention_count) {
            have.mention_count = count;
            have.mentions = e.mentions;
            if (e.mentions_omitted) have.mentions_omitted = e.mentions_omitted; else delete have.mentions_omitted;
          }
        }
      }
      for (const r of res.relations ?? []) nextRelations.set(r.id, r);
    }
    for (const q of this.queries) if (q.expands !== undefined) { const e = next.get(q.expands); if (e) e.expanded = true; }
    this.entities.clear();
    next.forEach((v, k) => this.entities.set(k, v));
    this.relations.clear();
    nextRelations.forEach((v, k) => { if (this.entities.has(v.subject) && this.entities.has(v.object)) this.relations.set(k, v); });
    this.measureRings();
  }

  /**
   * Sets each ring to the entity's shortest distance from the start over the drawn relations
   * (either direction), breadth first. A response's hops count from the entity it was asked
   * about, so after expansions `base + hops` can be longer than a path the drawing holds
   * (and which one depends on the order of the expansions). An entity no drawn path reaches
   * keeps the distance its responses gave.
   */
  private measureRings(): void {
    const starts = [...this.entities.values()].filter((e) => e.ring === 0);
    if (!starts.length) return;
    const next = new Map<number, number[]>();
    for (const r of this.relations.values()) {
      if (r.subject === r.object) continue;
      (next.get(r.subject) ?? next.set(r.subject, []).get(r.subject)!).push(r.object);
      (next.get(r.object) ?? next.set(r.object, []).get(r.object)!).push(r.subject);
    }
    const distance = new Map<number, number>(starts.map((e) => [e.id, 0]));
    let frontier = starts.map((e) => e.id);
    for (let d = 1; frontier.length; d += 1) {
      const reached: number[] = [];
      for (const id of frontier) for (const n of next.get(id) ?? []) if (!distance.has(n)) { distance.set(n, d); reached.push(n); }
      frontier = reached;
    }
    for (const e of this.entities.values()) { const d = distance.get(e.id); if (d !== undefined) e.ring = d; }
  }

  cutReport(): CutReport {
    const mentions: { name: string; count: number }[] = [];
    for (const e of this.last?.entities ?? []) if (e.mentions_omitted) mentions.push({ name: e.name, count: e.mentions_omitted });
    return { entities_omitted: this.last?.entities_omitted ?? 0, omitted: [...(this.last?.bounds?.omitted ?? [])], mentions_omitted: mentions };
  }

  snapshot(): GraphState {
    const s: GraphState = {
      start: this.start, entities: [...this.entities.values()], relations: [...this.relations.values()], last: this.last, cut: this.cutReport(),
      hidden: [...this.hidden].filter((id) => this.entities.has(id)).sort((a, b) => a - b),
      hidden_predicates: [...this.hiddenPredicates].sort(),
    };
    if (this.missing !== undefined) s.missing = this.missing;
    if (this.asOf !== undefined) s.as_of = this.asOf;
    return s;
  }

  /** What `target` selects, or null when it is not drawn (or a relation's end is not). */
  selectionOf(target: Target): GraphSelection | null {
    if ('entity' in target) {
      const e = this.entities.get(target.entity);
      return e ? { kind: 'entity', entity: e } : null;
    }
    const r = this.relations.get(target.relation);
    if (!r) return null;
    const subject = this.entities.get(r.subject);
    const object = this.entities.get(r.object);
    return subject && object ? { kind: 'relation', relation: r, subject, object } : null;
  }

  /** What the marks light on the drawn graph; null when nothing is marked. */
  highlight(): Highlight | null {
    if (!this.marks.length) return null;
    const mentioning = (ref: string) => [...this.entities.values()].filter((e) => e.mentions?.includes(ref)).map((e) => e.id);
    const found = new Set<number>();
    const lit: Highlight = { walked: new Set(), seeds: new Set(), relations: new Set(), paths: new Map() };
    for (const m of this.marks) {
      if (!m.path?.length) { mentioning(m.ref).forEach((id) => found.add(id)); continue; }
      for (const id of m.path) {
        const r = this.relations.get(id);
        if (!r) continue;
        lit.relations.add(id);
        lit.walked.add(r.subject).add(r.object);
      }
      const hops = m.hops ?? m.path.length;
      const path = `${m.why?.slice('relation:'.length)} · ${hops} ${hops === 1 ? 'hop' : 'hops'}`;
      // the label goes on the entity whose mention brought the record in; when it is not
      // drawn, on the drawn entities that mention the record
      const ends = m.via_entity !== undefined && this.entities.has(m.via_entity) ? [m.via_entity] : mentioning(m.ref);
      for (const id of ends) {
        lit.walked.add(id);
        lit.paths.set(id, [...new Set([...(lit.paths.get(id) ?? []), path])]);
      }
    }
    for (const id of found) if (!lit.walked.has(id)) lit.seeds.add(id);
    return lit;
  }
}
