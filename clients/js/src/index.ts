import { applyPatch, PatchError, type JsonValue, type PatchOperation } from './patch.js';
import { ProblemTypes, StreamgateProblem } from './problem.js';
import { SseParser, type SseEvent } from './sse.js';

export { applyPatch, PatchError, ProblemTypes, StreamgateProblem, SseParser };
export type { JsonValue, PatchOperation, SseEvent };
export type { ProblemType } from './problem.js';

export type Mode = 'snapshot-patch' | 'snapshot-only' | 'event';
export type TransportName = 'websocket' | 'sse';
export type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'paused' | 'closed';

export interface Backoff {
  /** First delay after a failure, in ms (500). */
  initial?: number;
  /** Longest delay, in ms (30,000). */
  max?: number;
  /** Growth per failure (2). Each delay is drawn between half and all of it (jitter). */
  factor?: number;
}

export interface ConnectOptions {
  /** The gateway, e.g. `https://streams.example.com` (a relative URL resolves against the page). */
  url: string;
  /** A token used as it is (until `getToken` gives another). */
  token?: string;
  /** Called for a token at start, before the current one expires, and when the gateway refuses it. */
  getToken?: () => string | Promise<string>;
  /** `websocket` (default where WebSocket exists: every topic on one connection) or `sse`. */
  transport?: TransportName;
  /** A WebSocket implementation, for runtimes without a global one (Node 20: the `ws` package). */
  WebSocket?: WebSocketConstructor;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  backoff?: Backoff;
  onStateChange?: (state: ConnectionState) => void;
  /** Problems about the connection rather than one topic (a refused token, say). */
  onProblem?: (problem: StreamgateProblem) => void;
}

export interface SubscribeOptions {
  /** Default: the topic's default mode. */
  mode?: Mode;
  /** Start after this id (an id received before), or `earliest`; default: now. */
  from?: string;
  /** A CEL expression over `data`, `type`, `key`, `headers`, `time`, `topic` (event topics). */
  filter?: string;
  /** Event types, `*` as a wildcard (event topics). */
  types?: string[];
  /** An RFC 6901 pointer: watch one part of a snapshot topic's document. */
  pointer?: string;
}

export interface StreamEvent<T = JsonValue> {
  topic: string;
  /** The resume cursor after this event. */
  id: string;
  /** The type its publisher gave it, if any. */
  type?: string;
  /** When it was published (ISO 8601). */
  time?: string;
  data: T;
}

export interface DocumentMeta {
  topic: string;
  id: string;
  /** What changed it: a whole snapshot, or a patch applied by the client. */
  change: 'snapshot' | 'patch';
}

export interface Handlers<T = JsonValue> {
  /** Snapshot modes: the whole current document after every snapshot or patch. */
  onDocument?: (document: T, meta: DocumentMeta) => void;
  /** Event mode: each event. */
  onEvent?: (event: StreamEvent<T>) => void;
  /** A problem about this topic; `problem.informational` ones do not end the subscription. */
  onProblem?: (problem: StreamgateProblem) => void;
}

export interface Subscription {
  readonly topic: string;
  /** The id of the last event received: where a reconnect resumes. */
  readonly lastEventId: string | undefined;
  /** The current document (snapshot modes). */
  readonly document: JsonValue | undefined;
  /** Whether it still receives (false once unsubscribed or ended by a problem). */
  readonly active: boolean;
  unsubscribe(): void;
}

export interface WebSocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;
const TOKEN_EXPIRED_CLOSE = 4401;
const GOING_AWAY_CLOSE = 1001;

/** One subscription's state, kept across reconnects. */
class Sub implements Subscription {
  lastEventId: string | undefined;
  document: JsonValue | undefined;
  active = true;
  /** Ended by a problem: the server holds nothing of it any more. */
  failed = false;
  /** A patch failed: patches are ignored until the next snapshot. */
  resyncing = false;

  constructor(
    private readonly client: Client,
    readonly topic: string,
    readonly options: SubscribeOptions,
    readonly handlers: Handlers<any>,
  ) {
    this.lastEventId = options.from;
  }

  unsubscribe(): void {
    if (!this.active) return;
    this.active = false;
    this.client.remove(this);
  }

  /** Takes one delivery; false when the subscription must be started again afresh. */
  deliver(kind: string, id: string | undefined, data: JsonValue, type?: string, time?: string): boolean {
    if (kind === 'snapshot') {
      this.resyncing = false;
      this.document = data;
      this.moveTo(id);
      this.handlers.onDocument?.(data, { topic: this.topic, id: this.lastEventId as string, change: 'snapshot' });
    }
    else if (kind === 'patch') {
      if (this.resyncing) return true;
      try {
        if (this.document === undefined) throw new PatchError('a patch came before any snapshot');
        this.document = applyPatch(this.document, data as unknown as PatchOperation[]);
      }
      catch (error) {
        this.resyncing = true;
        this.document = undefined;
        this.handlers.onProblem?.(new StreamgateProblem({
          type: ProblemTypes.PATCH_FAILED, title: 'Patch failed', status: 0,
          detail: `${(error as Error).message}; subscribing again for a fresh snapshot`,
        }, this.topic));
        return false;
      }
      this.moveTo(id);
      this.handlers.onDocument?.(this.document, { topic: this.topic, id: this.lastEventId as string, change: 'patch' });
    }
    else if (kind === 'event') {
      this.moveTo(id);
      this.handlers.onEvent?.({ topic: this.topic, id: id as string, type, time, data });
    }
    return true;
  }

  private moveTo(id: string | undefined): void {
    if (id) this.lastEventId = id;
  }

  /** Where a fresh (re)subscription starts: after the last event, or afresh after a failed patch. */
  resumeFrom(): string | undefined {
    return this.resyncing ? undefined : this.lastEventId;
  }

  /** Ends it on a problem that leaves nothing to retry. */
  fail(problem: StreamgateProblem): void {
    this.active = false;
    this.failed = true;
    this.client.remove(this);
    this.handlers.onProblem?.(problem);
  }
}

interface Transport {
  start(): void;
  stop(): void;
  added(sub: Sub): void;
  removed(sub: Sub): void;
  /** Start the subscription again after a patch failed. */
  restart(sub: Sub): void;
}

/** Backoff with jitter: the nth failure waits between half and all of initial * factor^n, capped. */
class Retry {
  private failures = 0;
  constructor(private readonly backoff: Required<Backoff>) {}
  reset(): void {
    this.failures = 0;
  }
  next(): number {
    const full = Math.min(this.backoff.max, this.backoff.initial * this.backoff.factor ** this.failures);
    this.failures += 1;
    return full / 2 + Math.random() * (full / 2);
  }
}

/** A client of one gateway: its subscriptions, on one transport. */
export class Client {
  readonly base: URL;
  readonly retryPolicy: Required<Backoff>;
  private readonly subs = new Set<Sub>();
  private readonly transport: Transport;
  private token: string | undefined;
  private tokenRequest: Promise<string | undefined> | undefined;
  private currentState: ConnectionState = 'disconnected';
  private started = false;

  constructor(readonly options: ConnectOptions) {
    const page = (globalThis as { location?: { href: string } }).location?.href;
    this.base = new URL(options.url, page);
    this.token = options.token;
    this.retryPolicy = { initial: 500, max: 30_000, factor: 2, ...options.backoff };
    const Ws = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    const name = options.transport ?? (Ws ? 'websocket' : 'sse');
    if (name === 'websocket') {
      if (!Ws) throw new Error('No WebSocket here: pass options.WebSocket, or transport: "sse"');
      this.transport = new WebSocketTransport(this, Ws);
    }
    else {
      this.transport = new SseTransport(this, options.fetch ?? globalThis.fetch.bind(globalThis));
    }
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  /**
   * Follows a topic (one subscription per topic and client). Handlers run for each document or
   * event, in order, exactly once each.
   */
  subscribe<T = JsonValue>(topic: string, options: SubscribeOptions = {}, handlers: Handlers<T> = {}): Subscription {
    if (this.currentState === 'closed') throw new Error('This client is closed');
    if ([...this.subs].some((s) => s.topic === topic)) {
      throw new Error(`This client is already subscribed to '${topic}': unsubscribe first, or use another client`);
    }
    const sub = new Sub(this, topic, options, handlers);
    this.subs.add(sub);
    if (!this.started && this.currentState !== 'paused') {
      this.started = true;
      this.transport.start();
    }
    this.transport.added(sub);
    return sub;
  }

  /** Disconnects, keeping every subscription's position; {@link resume} goes on from there. */
  pause(): void {
    if (this.currentState === 'closed') return;
    this.started = false;
    this.transport.stop();
    this.setState('paused');
  }

  resume(): void {
    if (this.currentState !== 'paused') return;
    this.setState('disconnected');
    if (this.subs.size > 0) {
      this.started = true;
      this.transport.start();
    }
  }

  /** Ends every subscription and the connection. */
  close(): void {
    this.transport.stop();
    for (const sub of this.subs) sub.active = false;
    this.subs.clear();
    this.setState('closed');
  }

  /** @internal */
  remove(sub: Sub): void {
    if (this.subs.delete(sub)) this.transport.removed(sub);
  }

  /** @internal */
  subscriptions(): Sub[] {
    return [...this.subs];
  }

  /** @internal */
  setState(state: ConnectionState): void {
    if (this.currentState === state || this.currentState === 'closed') return;
    this.currentState = state;
    this.options.onStateChange?.(state);
  }

  /** @internal The token to connect with. */
  async currentToken(): Promise<string | undefined> {
    if (this.token !== undefined || !this.options.getToken) return this.token;
    return this.freshToken();
  }

  /** @internal A new token from getToken (one request at a time), or the fixed one. */
  freshToken(): Promise<string | undefined> {
    if (!this.options.getToken) return Promise.resolve(this.token);
    if (!this.tokenRequest) {
      const getToken = this.options.getToken;
      this.tokenRequest = (async () => {
        try {
          this.token = await getToken();
          return this.token;
        }
        finally {
          this.tokenRequest = undefined;
        }
      })();
    }
    return this.tokenRequest;
  }

  /** @internal */
  connectionProblem(problem: StreamgateProblem): void {
    this.options.onProblem?.(problem);
  }

  /** @internal */
  get closed(): boolean {
    return this.currentState === 'closed' || !this.started;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every subscription on one WebSocket, resubscribed from its last id after each reconnect. */
class WebSocketTransport implements Transport {
  private socket: WebSocketLike | undefined;
  private readonly retry: Retry;
  private generation = 0;

  constructor(private readonly client: Client, private readonly Ws: WebSocketConstructor) {
    this.retry = new Retry(client.retryPolicy);
  }

  start(): void {
    void this.open(++this.generation);
  }

  stop(): void {
    this.generation += 1;
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close(1000);
    }
  }

  added(sub: Sub): void {
    this.send({ subscribe: this.parameters(sub) });
  }

  removed(sub: Sub): void {
    if (!sub.failed) this.send({ unsubscribe: { topic: sub.topic } });
  }

  restart(sub: Sub): void {
    this.send({ unsubscribe: { topic: sub.topic } });
    this.send({ subscribe: this.parameters(sub) });
  }

  private parameters(sub: Sub): Record<string, unknown> {
    const { mode, filter, types, pointer } = sub.options;
    return { topic: sub.topic, mode, lastEventId: sub.resumeFrom(), filter, types, pointer };
  }

  private send(message: unknown): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private async open(generation: number): Promise<void> {
    this.client.setState('connecting');
    let token: string | undefined;
    try {
      token = await this.client.currentToken();
    }
    catch (error) {
      this.client.connectionProblem(new StreamgateProblem({ type: ProblemTypes.UNAUTHORIZED, title: 'No token', status: 401, detail: String(error) }));
      return this.reconnect(generation, this.retry.next());
    }
    if (generation !== this.generation) return;
    const url = new URL('api/v1/ws', this.client.base.href.endsWith('/') ? this.client.base : this.client.base.href + '/');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    if (token) url.searchParams.set('access_token', token);
    let socket: WebSocketLike;
    try {
      socket = new this.Ws(url.href);
    }
    catch {
      return this.reconnect(generation, this.retry.next());
    }
    this.socket = socket;
    socket.onopen = () => {
      this.retry.reset();
      this.client.setState('connected');
      for (const sub of this.client.subscriptions()) this.send({ subscribe: this.parameters(sub) });
    };
    socket.onmessage = (event) => this.message(String(event.data));
    socket.onerror = () => {};
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.client.setState('disconnected');
      if (event.code === TOKEN_EXPIRED_CLOSE) {
        void this.client.freshToken().catch(() => undefined).then(() => this.reconnect(generation, 0));
      }
      else {
        this.reconnect(generation, event.code === GOING_AWAY_CLOSE ? 0 : this.retry.next());
      }
    };
  }

  private reconnect(generation: number, ms: number): void {
    if (generation !== this.generation || this.client.closed) return;
    void delay(ms).then(() => {
      if (generation === this.generation && !this.client.closed) void this.open(generation);
    });
  }

  private message(text: string): void {
    let message: { topic: string | null; type: string; id?: string; eventType?: string; time?: string; data: JsonValue };
    try {
      message = JSON.parse(text);
    }
    catch {
      return;
    }
    if (message.topic === null || message.topic === undefined) {
      this.connectionMessage(message.type, message.data);
      return;
    }
    const sub = this.client.subscriptions().find((s) => s.topic === message.topic);
    if (!sub) return;
    if (message.type === 'problem') {
      this.problem(sub, new StreamgateProblem(message.data as Record<string, unknown>, sub.topic));
    }
    else if (!sub.deliver(message.type, message.id, message.data, message.eventType, message.time)) {
      this.restart(sub);
    }
  }

  private connectionMessage(type: string, data: JsonValue): void {
    if (type === 'token-expiring') {
      void this.client.freshToken().then((token) => {
        if (token) this.send({ refresh: { token } });
      }, (error) => this.client.connectionProblem(new StreamgateProblem({ type: ProblemTypes.UNAUTHORIZED, title: 'No token', status: 401, detail: String(error) })));
    }
    else if (type === 'problem') {
      this.client.connectionProblem(new StreamgateProblem(data as Record<string, unknown>));
    }
  }

  private problem(sub: Sub, problem: StreamgateProblem): void {
    if (problem.informational) {
      sub.handlers.onProblem?.(problem);
    }
    else if (problem.transient) {
      sub.handlers.onProblem?.(problem);
      const generation = this.generation;
      void delay(this.retry.next()).then(() => {
        if (generation === this.generation && sub.active) this.send({ subscribe: this.parameters(sub) });
      });
    }
    else {
      sub.fail(problem);
    }
  }
}

/** One SSE stream per subscription, read with fetch (so that the token goes in a header). */
class SseTransport implements Transport {
  private readonly streams = new Map<Sub, SseStream>();
  private readonly states = new Map<SseStream, ConnectionState>();

  constructor(private readonly client: Client, readonly fetcher: typeof fetch) {}

  start(): void {
    for (const sub of this.client.subscriptions()) this.added(sub);
  }

  stop(): void {
    for (const stream of this.streams.values()) stream.stop();
    this.streams.clear();
    this.states.clear();
  }

  added(sub: Sub): void {
    if (this.client.closed || this.streams.has(sub)) return;
    const stream = new SseStream(this.client, this, sub);
    this.streams.set(sub, stream);
    void stream.run();
  }

  removed(sub: Sub): void {
    this.streams.get(sub)?.stop();
    this.streams.delete(sub);
  }

  restart(sub: Sub): void {
    this.streams.get(sub)?.reconnect();
  }

  /** @internal */
  ended(sub: Sub, stream: SseStream): void {
    if (this.streams.get(sub) === stream) this.streams.delete(sub);
    this.states.delete(stream);
    this.report();
  }

  /** @internal One stream's state; the client's is connected once every stream is. */
  stateOf(stream: SseStream, state: ConnectionState): void {
    this.states.set(stream, state);
    this.report();
  }

  private report(): void {
    const states = [...this.states.values()];
    if (states.length === 0 || this.client.closed) return;
    if (states.every((state) => state === 'connected')) this.client.setState('connected');
    else if (states.includes('connecting')) this.client.setState('connecting');
    else this.client.setState('disconnected');
  }
}

class SseStream {
  private abort: AbortController | undefined;
  private stopped = false;
  private readonly retry: Retry;

  constructor(private readonly client: Client, private readonly transport: SseTransport, private readonly sub: Sub) {
    this.retry = new Retry(client.retryPolicy);
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  /** Ends the current request; the loop connects again at once from the last id. */
  reconnect(): void {
    this.abort?.abort();
  }

  private url(): string {
    const { mode, filter, types, pointer } = this.sub.options;
    const url = new URL(`api/v1/stream/${encodeURIComponent(this.sub.topic)}`,
      this.client.base.href.endsWith('/') ? this.client.base : this.client.base.href + '/');
    // Each data a structured CloudEvent: the event's type and time come with it.
    url.searchParams.set('format', 'cloudevents');
    if (mode) url.searchParams.set('mode', mode);
    if (filter) url.searchParams.set('filter', filter);
    if (types) url.searchParams.set('types', types.join(','));
    if (pointer) url.searchParams.set('pointer', pointer);
    return url.href;
  }

  async run(): Promise<void> {
    let refusedToken = false;
    while (!this.stopped && this.sub.active && !this.client.closed) {
      let wait = 0;
      const abort = new AbortController();
      this.abort = abort;
      try {
        const token = await this.client.currentToken();
        const headers: Record<string, string> = { Accept: 'text/event-stream' };
        if (token) headers.Authorization = `Bearer ${token}`;
        const from = this.sub.resumeFrom();
        if (from) headers['Last-Event-ID'] = from;
        this.transport.stateOf(this, 'connecting');
        const response = await this.transport.fetcher(this.url(), { headers, signal: abort.signal, cache: 'no-store' });
        if (!response.ok || !response.body) {
          const problem = await problemOf(response, this.sub.topic);
          if (problem.status === 401 && !refusedToken && this.client.options.getToken) {
            refusedToken = true;
            await this.client.freshToken();
            continue;
          }
          if (!problem.transient) {
            this.sub.fail(problem);
            break;
          }
          this.sub.handlers.onProblem?.(problem);
          wait = this.retry.next();
        }
        else {
          refusedToken = false;
          this.transport.stateOf(this, 'connected');
          wait = await this.read(response.body, abort);
        }
      }
      catch (error) {
        if (this.stopped) break;
        wait = abort.signal.aborted ? 0 : this.retry.next();
      }
      if (!this.stopped && this.sub.active) this.transport.stateOf(this, 'disconnected');
      if (wait > 0) await delay(wait);
    }
    this.transport.ended(this.sub, this);
  }

  /** Reads one response to its end; how long to wait before the next. */
  private async read(body: ReadableStream<Uint8Array>, abort: AbortController): Promise<number> {
    let wait: number | undefined;
    const parser = new SseParser((event) => {
      if (wait === undefined) wait = this.event(event, abort);
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    this.retry.reset();
    try {
      while (wait === undefined) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    }
    finally {
      abort.abort();
      reader.releaseLock?.();
    }
    return wait ?? this.retry.next();
  }

  /** Takes one event; a number ends the response (the wait before the next). */
  private event(event: SseEvent, abort: AbortController): number | undefined {
    let data: any;
    try {
      data = JSON.parse(event.data);
    }
    catch {
      return undefined;
    }
    switch (event.event) {
      case 'snapshot':
      case 'patch':
      case 'event': {
        const cloudEvent = data && typeof data === 'object' && 'specversion' in data;
        const type = cloudEvent && typeof data.type === 'string' && !data.type.startsWith('dev.streamgate.') ? data.type : undefined;
        const ok = this.sub.deliver(event.event, event.id, cloudEvent ? data.data : data, type, cloudEvent ? data.time : undefined);
        return ok ? undefined : 0;
      }
      case 'token-expiring':
        // A fresh token, then a new request from the last id: nothing lost, nothing repeated.
        void this.client.freshToken().then(() => abort.abort(), () => undefined);
        return undefined;
      case 'problem': {
        const problem = new StreamgateProblem(data, this.sub.topic);
        if (problem.informational) {
          this.sub.handlers.onProblem?.(problem);
          return undefined;
        }
        if (problem.type === ProblemTypes.TOKEN_EXPIRED) {
          void this.client.freshToken().catch(() => undefined);
          return 0;
        }
        if (problem.type === ProblemTypes.SHUTTING_DOWN) return 0;
        if (problem.transient) {
          this.sub.handlers.onProblem?.(problem);
          return this.retry.next();
        }
        this.sub.fail(problem);
        return 0;
      }
      default:
        return undefined;
    }
  }
}

async function problemOf(response: Response, topic: string): Promise<StreamgateProblem> {
  let body: Record<string, unknown>;
  try {
    body = await response.json();
  }
  catch {
    body = { title: response.statusText || `HTTP ${response.status}` };
  }
  if (typeof body.status !== 'number') body.status = response.status;
  return new StreamgateProblem(body, topic);
}

/** Connects to a gateway: subscriptions share one connection (WebSocket) or get one stream each (SSE). */
export function connect(options: ConnectOptions): Client {
  return new Client(options);
}
