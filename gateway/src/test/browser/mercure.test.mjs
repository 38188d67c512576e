// Chromium's EventSource and fetch against the Mercure hub, as a Mercure web client uses it: a page
// of the hub's origin (PROXY_URL, a TCP proxy in front of the gateway) subscribes with each kind of
// selector (an exact topic, a URI template, *), anonymously, with the token in the
// mercureAuthorization cookie and in the authorization query parameter; it resumes with the
// lastEventID query parameter (an id, earliest), and, once the test cuts the connection (it
// prints `cut-now` and waits for a `cut` line), with the Last-Event-ID header the browser sends
// when it reconnects by itself. The page publishes with fetch, by the Authorization header and by
// the cookie. Passes when each subscription received exactly the updates it selects and may see,
// each once, in order.
//
// Environment: BASE_URL (the gateway, for the test's own publications), PROXY_URL (the page's
// origin), PUBLISHER (a token that may publish anything), SUBSCRIBER (a token that may publish
// anything and receive the private updates of BASE_TOPIC/{id}), BASE_TOPIC, CHROMIUM.
import { chromium } from 'playwright-core';
import readline from 'node:readline';

const { BASE_URL: base, PROXY_URL: proxy, PUBLISHER: publisher, SUBSCRIBER: subscriber,
  BASE_TOPIC: topic } = process.env;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
// A page that waits for nothing must not hold the test forever.
setTimeout(() => { console.log('not ok - the script timed out'); process.exit(1); }, 240_000).unref();

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

/** Publishes from the test (not the page): the update's id. */
async function publish(fields) {
  const body = new URLSearchParams();
  for (const [name, value] of fields) body.append(name, value);
  const response = await fetch(`${base}/.well-known/mercure`, {
    method: 'POST', headers: { Authorization: `Bearer ${publisher}` }, body,
  });
  if (response.status !== 200) throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  return response.text();
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.log('page error: ' + error.message));
  await page.goto(`${proxy}/actuator/health/liveness`);
  await page.evaluate(() => {
    window.received = {};
    window.opens = {};
    window.firsts = {};
    window.subscribe = (name, params) => {
      const url = new URL('/.well-known/mercure', location.origin);
      for (const [key, value] of params) url.searchParams.append(key, value);
      window.received[name] = [];
      window.opens[name] = 0;
      const source = new EventSource(url);
      window.sources = { ...window.sources, [name]: source };
      source.onopen = () => { window.opens[name] += 1; };
      const record = (e) => {
        const update = { id: e.lastEventId, data: e.data, type: e.type };
        window.firsts[name] ??= update;
        window.received[name].push(update);
      };
      source.onmessage = record;
      source.addEventListener('book', record);
    };
  });
  const waitFor = (expression, arg, what) => page.waitForFunction(expression, arg, { timeout: 60_000 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  const opened = (names) => waitFor((names) => names.every((n) => window.opens[n] >= 1), names,
    `${names.join(', ')} to open`);
  // The ids received since the last look, which the next look does not count again.
  const idsOf = (name) => page.evaluate((name) => window.received[name].splice(0).map((e) => e.id), name);
  async function receivedExactly(name, ids) {
    await waitFor(([name, count]) => window.received[name].length >= count, [name, ids.length],
      `${ids.length} updates on ${name}`);
    await page.waitForTimeout(500);
    const got = await idsOf(name);
    expect(JSON.stringify(got) === JSON.stringify(ids),
      `${name} received ${ids.length} updates, in order, once each${(got.length === ids.length) ? '' : ': ' + got}`);
  }

  // Anonymous subscribers, one of each selector kind.
  await page.evaluate((topic) => {
    window.subscribe('exact', [['topic', `${topic}/1`]]);
    window.subscribe('template', [['topic', `${topic}/{id}`]]);
    window.subscribe('any', [['topic', '*']]);
  }, topic);
  await opened(['exact', 'template', 'any']);
  const u1 = await publish([['topic', `${topic}/1`], ['data', 'line one\nline two'], ['type', 'book']]);
  const u2 = await publish([['topic', `${topic}/2`], ['data', 'private two'], ['private', 'on']]);
  const u3 = await publish([['topic', `urn:alternate:${topic}`], ['topic', `${topic}/3`], ['data', 'three']]);
  const u4 = await publish([['topic', 'https://example.org/elsewhere'], ['data', 'four']]);
  await receivedExactly('exact', [u1]);
  await receivedExactly('template', [u1, u3]);
  const first = await page.evaluate(() => window.firsts.template);
  await receivedExactly('any', [u1, u3, u4]);
  expect(first.type === 'book' && first.data === 'line one\nline two', 'the event type and every data line arrived');

  // A browser holds six HTTP/1.1 connections to an origin: room for the next three streams and
  // the page's publications.
  await page.evaluate(() => window.sources.exact.close());

  // The token by cookie (a page of the hub's origin sets it), then by query parameter.
  await page.evaluate((token) => { document.cookie = `mercureAuthorization=${token}; path=/.well-known/mercure`; },
    subscriber);
  await page.evaluate(([topic, token, u3]) => {
    window.subscribe('cookie', [['topic', `${topic}/{id}`]]);
    window.subscribe('query', [['topic', `${topic}/{id}`], ['authorization', token], ['lastEventID', 'earliest']]);
    window.subscribe('resumed', [['topic', `${topic}/{id}`], ['lastEventID', u3]]);
  }, [topic, subscriber, u3]);
  await opened(['cookie', 'query', 'resumed']);
  // The page publishes a private update by the Authorization header, and one by the cookie.
  const [u5, u6] = await page.evaluate(async ([topic, publisher]) => {
    const byHeader = await fetch('/.well-known/mercure', {
      method: 'POST', headers: { Authorization: `Bearer ${publisher}` },
      body: new URLSearchParams({ topic: `${topic}/5`, data: 'private five', private: 'on' }),
    });
    const byCookie = await fetch('/.well-known/mercure', {
      method: 'POST', body: new URLSearchParams({ topic: `${topic}/6`, data: 'six' }),
    });
    if (byHeader.status !== 200 || byCookie.status !== 200) {
      throw new Error(`publications answered ${byHeader.status} and ${byCookie.status}`);
    }
    return [await byHeader.text(), await byCookie.text()];
  }, [topic, publisher]);
  expect(true, 'the page published by the Authorization header and by the cookie');
  await receivedExactly('cookie', [u5, u6]);
  await receivedExactly('query', [u1, u2, u3, u5, u6]);
  await receivedExactly('resumed', [u5, u6]);
  await receivedExactly('template', [u6]);
  await receivedExactly('any', [u6]);

  // The connection cut: each EventSource reconnects by itself with the Last-Event-ID header, and
  // now with the cookie too, which grants the private updates of the template to them all.
  console.log('cut-now');
  const answer = await lines.next();
  expect(answer.value === 'cut', 'the proxy cut the connections');
  const u7 = await publish([['topic', `${topic}/7`], ['data', 'private seven'], ['private', 'on']]);
  const u8 = await publish([['topic', `${topic}/8`], ['data', 'eight']]);
  await receivedExactly('template', [u7, u8]);
  await receivedExactly('any', [u7, u8]);
  await receivedExactly('cookie', [u7, u8]);
  await receivedExactly('query', [u7, u8]);
  await receivedExactly('resumed', [u7, u8]);
  const opens = await page.evaluate(() => window.opens);
  delete opens.exact;
  expect(Object.values(opens).every((count) => count >= 2), `every EventSource reconnected (${JSON.stringify(opens)})`);
} finally {
  await browser.close();
}
process.exit(0);
