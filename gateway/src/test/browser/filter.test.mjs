// A browser's EventSource with event types and a CEL filter in its URL, its connection cut by the
// network (a TCP proxy resets it) and reconnected by the browser itself with Last-Event-ID to the
// same URL, filter included. The page streams TOPIC over PROXY_URL with
// types=order.*&filter=data.amount > 100.0; the test publishes orders and invoices of every amount
// (through BASE_URL, with ?type=), cuts the connection (it prints `cut-now` and waits for a `cut`
// line on its standard input), and publishes more. Passes when the page received exactly the
// selected events, each once and in order.
//
// Environment: BASE_URL (the gateway, for publishing), PROXY_URL (the proxy, for the page),
// TOKEN (a token that may subscribe and publish), TOPIC (an http-post event topic),
// CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import readline from 'node:readline';

const base = process.env.BASE_URL;
const proxy = process.env.PROXY_URL;
const token = process.env.TOKEN;
const topic = process.env.TOPIC;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

async function publish(n, type, amount) {
  const response = await fetch(`${base}/api/v1/publish/${topic}?type=${type}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ n, amount }),
  });
  if (response.status !== 202) throw new Error(`publish ${n} answered ${response.status}`);
}

// Two of every three events are not selected: an invoice, or an order of 100 or less.
async function publishFrom(first, count) {
  for (let n = first; n < first + count; n++) {
    const type = (n % 3 === 1) ? 'invoice.paid' : 'order.created';
    const amount = (n % 3 === 2) ? 50 : 150 + n;
    await publish(n, type, amount);
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${proxy}/actuator/health/liveness`);
  await page.evaluate(({ topic, token }) => {
    window.received = [];
    window.opens = 0;
    const query = new URLSearchParams({ types: 'order.*', filter: 'data.amount > 100.0', access_token: token });
    window.source = new EventSource(`/api/v1/stream/${topic}?${query}`);
    window.source.onopen = () => { window.opens += 1; };
    window.source.addEventListener('event', (e) => window.received.push({ id: e.lastEventId, n: JSON.parse(e.data).n }));
  }, { topic, token });
  const waitFor = (expression, arg, what) => page.waitForFunction(expression, arg, { timeout: 60_000 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });

  await waitFor(() => window.opens >= 1, null, 'the stream to open');
  await publishFrom(0, 9);
  await waitFor((n) => window.received.length >= n, 3, 'the three selected events of the first nine');

  console.log('cut-now');
  const answer = await lines.next();
  expect(answer.value === 'cut', 'the proxy cut the connection');

  await publishFrom(9, 9);
  await waitFor((n) => window.received.length >= n, 6, 'the three selected events of the next nine');
  await page.waitForTimeout(1000);
  const { received, opens } = await page.evaluate(() => ({ received: window.received, opens: window.opens }));
  expect(opens >= 2, `the EventSource reconnected by itself (${opens} opens)`);
  expect(new Set(received.map((e) => e.id)).size === received.length, 'no id seen twice');
  expect(received.map((e) => e.n).join(',') === '0,3,6,9,12,15',
    `only the selected events, resumed without gap or duplicate: ${received.map((e) => e.n).join(',')}`);
} finally {
  await browser.close();
}
process.exit(0);
