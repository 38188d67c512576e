// The JavaScript client in a browser page, across a gateway restart: the built package (CLIENT_DIST)
// is served to the page as an ES module, and two clients, one over WebSocket and one over SSE, follow
// a snapshot topic (DOCS) and an event topic (EVENTS). The test publishes, asks for a restart
// (prints `restart-now`, reads `restarted`), publishes again, and passes when each client's document
// is the last one published and each received every event exactly once, in order.
//
// Environment: BASE_URL, TOKEN (an admin token), DOCS, EVENTS, CLIENT_DIST, CHROMIUM.
import { chromium } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';

const { BASE_URL: base, TOKEN: token, DOCS: docs, EVENTS: events, CLIENT_DIST: dist } = process.env;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

// Publishes; a gateway that has just restarted may answer 503 until its ingest is ready.
async function publish(topic, body) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${base}/api/v1/publish/${topic}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (response.status === 202) return;
    if (response.status !== 503 || attempt >= 50) throw new Error(`publish to ${topic} answered ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** JSON with its object keys sorted: the gateway keeps a document's members in its own order. */
const canonical = (value) => JSON.stringify(value, (key, v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

const document = (n) => ({ n, rows: Array.from({ length: 1 + (n % 4) }, (_, i) => ({ i, price: n * 10 + i })) });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.log('page error: ' + error.message));
  await page.route(`${base}/__client/*`, async (route) => {
    const name = path.basename(new URL(route.request().url()).pathname);
    route.fulfill({ contentType: 'text/javascript', body: await readFile(path.join(dist, name)) });
  });
  await page.goto(`${base}/actuator/health/liveness`);
  await page.evaluate(async ({ token, docs, events }) => {
    const { connect } = await import('/__client/index.js');
    window.seen = {};
    for (const transport of ['websocket', 'sse']) {
      const seen = { document: undefined, events: [], states: [] };
      window.seen[transport] = seen;
      const client = connect({ url: location.origin, token, transport, backoff: { initial: 200, max: 2000 },
        onStateChange: (state) => seen.states.push(state) });
      client.subscribe(docs, {}, { onDocument: (doc) => { seen.document = doc; } });
      client.subscribe(events, { from: 'earliest' }, { onEvent: (event) => seen.events.push(event.data.n) });
    }
  }, { token, docs, events });
  const waitFor = (fn, arg, what) => page.waitForFunction(fn, arg, { timeout: 60_000 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  const caughtUp = (n) => waitFor((n) => ['websocket', 'sse'].every((t) => window.seen[t].events.length >= n + 1
    && window.seen[t].document?.n === n), n, `both clients at ${n}`);

  for (let n = 0; n < 5; n++) {
    await publish(docs, document(n));
    await publish(events, { n });
  }
  await caughtUp(4);

  console.log('restart-now');
  const answer = await lines.next();
  expect(answer.value === 'restarted', 'the gateway was restarted');

  for (let n = 5; n < 10; n++) {
    await publish(docs, document(n));
    await publish(events, { n });
  }
  await caughtUp(9);
  await page.waitForTimeout(1000);
  const seen = await page.evaluate(() => window.seen);
  for (const transport of ['websocket', 'sse']) {
    expect(canonical(seen[transport].document) === canonical(document(9)), `${transport}: the document is the last published`);
    expect(JSON.stringify(seen[transport].events) === JSON.stringify([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), `${transport}: every event once, in order`);
    expect(seen[transport].states.filter((s) => s === 'connected').length >= 2, `${transport}: reconnected by itself (${seen[transport].states})`);
  }
} catch (error) {
  console.log('not ok - ' + (error.stack ?? error));
  process.exitCode = 1;
} finally {
  await browser.close();
  process.exit(process.exitCode ?? 0);
}
