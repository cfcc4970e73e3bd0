// What durable-object.ts uses of Cloudflare's runtime, declared for this package's build
// only (not shipped): a Worker's own project has `@cloudflare/workers-types`, whose
// declarations these agree with, and the runtime provides `cloudflare:workers`.

interface SqlStorageCursor<T> extends Iterable<T> {
  toArray(): T[];
  one(): T;
}

interface SqlStorage {
  exec<T = Record<string, ArrayBuffer | string | number | null>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
  /** The database's size in bytes (its pages, free ones included). */
  readonly databaseSize: number;
}

/** A server-side WebSocket as workerd gives it (the DOM's, with what the hibernation API adds). */
interface WebSocket {
  accept(): void;
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

/** The two ends of a new WebSocket: `0` the client's, `1` the server's. */
declare class WebSocketPair {
  0: WebSocket;
  1: WebSocket;
}

interface ResponseInit {
  /** A WebSocket upgrade's client end (status 101). */
  webSocket?: WebSocket | null;
}

interface DurableObjectId {
  toString(): string;
}

interface DurableObjectStorage {
  readonly sql: SqlStorage;
  transactionSync<T>(closure: () => T): T;
  setAlarm(scheduledTime: number | Date): Promise<void>;
  getAlarm(): Promise<number | null>;
}

interface DurableObjectState {
  readonly id: DurableObjectId;
  readonly storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  /** Hibernatable WebSockets: the object's `webSocketMessage`/`webSocketClose` receive its events. */
  acceptWebSocket(ws: WebSocket, tags?: string[]): void;
  getWebSockets(tag?: string): WebSocket[];
}

declare module 'cloudflare:workers' {
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
}
