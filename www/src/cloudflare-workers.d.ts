// What durable-object.ts uses of Cloudflare's runtime, declared for this package's build
// only (not shipped): a Worker's own project has `@cloudflare/workers-types`, whose
// declarations these agree with, and the runtime provides `cloudflare:workers`.

interface SqlStorageCursor<T> {
  toArray(): T[];
  one(): T;
}

interface SqlStorage {
  exec<T = Record<string, ArrayBuffer | string | number | null>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
}

interface DurableObjectId {
  toString(): string;
}

interface DurableObjectStorage {
  readonly sql: SqlStorage;
  transactionSync<T>(closure: () => T): T;
}

interface DurableObjectState {
  readonly id: DurableObjectId;
  readonly storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

declare module 'cloudflare:workers' {
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
}
