// The client against a running gateway (started by the gateway module's JsClientTests, which sets
// BASE_URL and SECRET, the gateway's HS256 key, and a token-expiring notice of 2 s). Node 20 runs it
// with --experimental-websocket for a global WebSocket. ONLY=websocket or ONLY=sse runs one transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { connect, ProblemTypes } from '../../dist/index.js';

if (!globalThis.WebSocket) throw new Error('no global WebSocket: run Node 20 with --experimental-websocket');

const base = process.env.BASE_URL;
const secret = process.env.SECRET;
if (!base || !secret) throw new Error('BASE_URL and SECRET are set by JsClientTests');

function token(rights, seconds, subject = 'client-test') {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: subject, exp: Math.floor(Date.now() / 1000) + seconds, streamgate: rights })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const admin = () => token({ admin: true }, 3600);

async function send(method, path, body, expected) {
  const response = await fetch(base + path, {
    method, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin()}` }, body: JSON.stringify(body),
  });
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

async function topic(payloadType) {
  const id = `js-${payloadType}-${randomUUID().substring(0, 8)}`;
  await send('POST', '/api/v1/topics', { id, payloadType, publisher: { type: 'http-post' } }, 201);
  return id;
}

const publish = (id, body) => send('POST', `/api/v1/publish/${id}`, body, 202);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition, what, ms = 30_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(50);
  }
}

/** A TCP proxy to the gateway whose connections the test cuts. */
async function proxy() {
  const target = new URL(base);
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    cut() {
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    close() {
      this.cut();
      server.close();
    },
  };
}

for (const transport of (process.env.ONLY ? [process.env.ONLY] : ["websocket", "sse"])) {
  test(`${transport}: a snapshot topic's document and an event topic's events survive cut connections`, async () => {
    const documents = await topic('snapshot');
    const events = await topic('event');
    const cuts = await proxy();
    const states = [];
    const client = connect({ url: cuts.url, transport, token: token({ subscribe: [documents, events] }, 3600),
      backoff: { initial: 100, max: 1000 }, onStateChange: (state) => states.push(state) });
    try {
      let document;
      let changes = 0;
      const received = [];
      client.subscribe(documents, { mode: 'snapshot-patch' }, { onDocument: (doc) => { document = doc; changes += 1; } });
      client.subscribe(events, { from: 'earliest' }, { onEvent: (event) => received.push(event) });
      let last;
      for (let n = 0; n < 30; n++) {
        last = { n, items: Array.from({ length: n % 7 }, (_, i) => ({ i, label: `item ${i} of ${n}` })), meta: n % 2 ? { odd: true } : null };
        await publish(documents, last);
        await publish(events, { n });
        if (n === 10 || n === 20) {
          await until(() => document !== undefined, 'a first document');
          assert.ok(cuts.cut() > 0, 'the proxy had connections to cut');
        }
        await sleep(30);
      }
      await until(() => received.length >= 30 && isDeepStrictEqual(document, last),
        () => `the last document and every event: document ${JSON.stringify(document)}, events ${received.map((e) => e.data.n)}, states ${states}`);
      await sleep(500);
      assert.deepEqual(document, last);
      assert.deepEqual(received.map((event) => event.data.n), Array.from({ length: 30 }, (_, n) => n), 'every event once, in order');
      assert.ok(received.every((event) => event.id && event.topic === events && !Number.isNaN(Date.parse(event.time))));
      assert.ok(states.filter((state) => state === 'connected').length >= 3, `reconnected after each cut: ${states}`);
      assert.ok(changes >= 2);
    }
    finally {
      client.close();
      cuts.close();
    }
  });

  test(`${transport}: several topics, a filter, event types and a pointer view on one client`, async () => {
    const orders = await topic('event');
    const prices = await topic('snapshot');
    const client = connect({ url: base, transport, token: token({ subscribe: [orders, prices] }, 3600) });
    // One subscription per topic and client: a second view of the same topic takes another client.
    const second = connect({ url: base, transport, token: token({ subscribe: [orders] }, 3600) });
    try {
      const big = [];
      const created = [];
      const views = [];
      client.subscribe(orders, { from: 'earliest', filter: 'data.amount > 100.0' }, { onEvent: (e) => big.push(e.data.amount) });
      assert.throws(() => client.subscribe(orders, {}), /already subscribed/);
      second.subscribe(orders, { from: 'earliest', types: ['order.created'] }, { onEvent: (e) => created.push(e) });
      await publish(prices, { prices: { EURUSD: 1.0, GBPUSD: 1.3 } });
      client.subscribe(prices, { pointer: '/prices/EURUSD' }, { onDocument: (part) => views.push(part) });
      await until(() => views.length >= 1, 'the view as it stands');
      for (const [amount, type] of [[50, 'order.created'], [150, 'order.paid'], [250, 'order.created']]) {
        await send('POST', `/api/v1/publish/${orders}?type=${type}`, { amount }, 202);
      }
      await publish(prices, { prices: { EURUSD: 1.1, GBPUSD: 1.3 } });
      await publish(prices, { prices: { EURUSD: 1.1, GBPUSD: 1.4 } });
      await publish(prices, { prices: { EURUSD: 1.2, GBPUSD: 1.4 } });
      await until(() => big.length >= 2 && created.length >= 2 && views.at(-1) === 1.2, 'the selected events and the view');
      assert.deepEqual(big, [150, 250]);
      assert.deepEqual(created.map((e) => [e.data.amount, e.type]), [[50, 'order.created'], [250, 'order.created']]);
      assert.deepEqual(views, [1.0, 1.1, 1.2], 'the view changed twice, not at GBPUSD\'s change');
    }
    finally {
      client.close();
      second.close();
    }
  });

  test(`${transport}: a paused client resumes from where it stood`, async () => {
    const id = await topic('event');
    const states = [];
    const client = connect({ url: base, transport, token: token({ subscribe: [id] }, 3600), onStateChange: (s) => states.push(s) });
    try {
      const received = [];
      const subscription = client.subscribe(id, { from: 'earliest' }, { onEvent: (e) => received.push(e.data.n) });
      await publish(id, { n: 0 });
      await until(() => received.length === 1, 'the first event');
      client.pause();
      assert.equal(client.state, 'paused');
      for (const n of [1, 2, 3]) await publish(id, { n });
      await sleep(500);
      assert.deepEqual(received, [0], 'nothing arrives while paused');
      client.resume();
      await until(() => received.length >= 4, 'the events published while paused');
      await sleep(300);
      assert.deepEqual(received, [0, 1, 2, 3]);
      assert.equal(client.state, 'connected');
      assert.ok(subscription.lastEventId && subscription.active);
      subscription.unsubscribe();
      await publish(id, { n: 4 });
      await sleep(500);
      assert.deepEqual(received, [0, 1, 2, 3], 'nothing after unsubscribe');
    }
    finally {
      client.close();
    }
  });

  test(`${transport}: problems are typed values and end only their own subscription`, async () => {
    const granted = await topic('event');
    const other = await topic('event');
    // Granted but absent (404 on every channel; a topic not granted is 403 whether or not it exists).
    const absent = `js-absent-${randomUUID().substring(0, 8)}`;
    const client = connect({ url: base, transport, token: token({ subscribe: [granted, absent] }, 3600) });
    try {
      const problems = [];
      const missing = client.subscribe(absent, {}, { onProblem: (p) => problems.push(p) });
      const forbidden = client.subscribe(other, {}, { onProblem: (p) => problems.push(p) });
      const received = [];
      client.subscribe(granted, { from: 'earliest' }, { onEvent: (e) => received.push(e.data) });
      await until(() => problems.length >= 2, 'two problems');
      const types = problems.map((p) => [p.topic, p.type]).sort();
      assert.deepEqual(types, [[absent, ProblemTypes.TOPIC_NOT_FOUND], [other, ProblemTypes.FORBIDDEN]].sort());
      assert.equal(missing.active, false);
      assert.equal(forbidden.active, false);
      await publish(granted, { still: 'here' });
      await until(() => received.length >= 1, 'the granted topic\'s event');
      assert.deepEqual(received, [{ still: 'here' }]);
    }
    finally {
      client.close();
    }
  });
}

/** One client's minute of refreshed 5-second tokens, under an event every 200 ms. */
async function refreshedForAMinute(transport) {
  const id = await topic('event');
  let tokens = 0;
  const client = connect({ url: base, transport, getToken: () => { tokens += 1; return token({ subscribe: [id] }, 5); } });
  const problems = [];
  const received = [];
  try {
    client.subscribe(id, { from: 'earliest' }, { onEvent: (event) => received.push(event.data.n), onProblem: (p) => problems.push(p) });
    const end = Date.now() + 60_000;
    let n = 0;
    while (Date.now() < end) {
      await publish(id, { n: n++ });
      await sleep(200);
    }
    await until(() => received.length >= n, `all ${n} events`);
    await sleep(500);
    assert.deepEqual(received, Array.from({ length: n }, (_, i) => i), `${transport}: every event once, in order`);
    assert.ok(tokens >= 11, `${transport}: getToken was called ${tokens} times: the first token and at least ten refreshes`);
    assert.deepEqual(problems, []);
    return { transport, events: n, tokens };
  }
  finally {
    client.close();
  }
}

test('5-second tokens refreshed over a minute, WebSocket and SSE side by side, lose and repeat nothing', async () => {
  const outcomes = await Promise.all([refreshedForAMinute('websocket'), refreshedForAMinute('sse')]);
  for (const { transport, events, tokens } of outcomes) console.log(`# ${transport}: ${events} events, ${tokens} tokens`);
});
