// A browser's EventSource across a gateway restart: a token in the query (EventSource cannot set
// headers), three events, then the test restarts the gateway (it prints `restart-now` and waits
// for a `restarted` line on its standard input), three more events. Passes when the stream
// resumed on its own with Last-Event-ID and received each event exactly once, in order.
//
// Environment: BASE_URL (the gateway), TOKEN (the admin token it logged), TOPIC (an http-post
// event topic), CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import readline from 'node:readline';

const base = process.env.BASE_URL;
const token = process.env.TOKEN;
const topic = process.env.TOPIC;
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

async function publish(n) {
  const response = await fetch(`${base}/api/v1/publish/${topic}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ n }),
  });
  if (response.status !== 202) throw new Error(`publish ${n} answered ${response.status}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${base}/actuator/health/liveness`);
  await page.evaluate(({ topic, token }) => {
    window.received = [];
    window.opens = 0;
    window.source = new EventSource(`/api/v1/stream/${topic}?access_token=${encodeURIComponent(token)}`);
    window.source.onopen = () => { window.opens += 1; };
    window.source.addEventListener('event', (e) => window.received.push({ id: e.lastEventId, n: JSON.parse(e.data).n }));
  }, { topic, token });
  const waitFor = (expression, what) => page.waitForFunction(expression, null, { timeout: 60_000 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });

  await waitFor(() => window.opens >= 1, 'the stream to open');
  for (const n of [0, 1, 2]) await publish(n);
  await waitFor(() => window.received.length >= 3, 'the first three events');

  console.log('restart-now');
  const answer = await lines.next();
  expect(answer.value === 'restarted', 'the gateway was restarted');

  for (const n of [3, 4, 5]) await publish(n);
  await waitFor(() => window.received.length >= 6, 'the three events after the restart');
  await page.waitForTimeout(1000);
  const { received, opens, state } = await page.evaluate(
    () => ({ received: window.received, opens: window.opens, state: window.source.readyState }));
  expect(opens >= 2, `the EventSource reconnected by itself (${opens} opens)`);
  expect(state !== 2, `the EventSource is not closed (readyState ${state})`);
  expect(new Set(received.map((e) => e.id)).size === received.length, 'no id seen twice');
  expect(received.map((e) => e.n).join(',') === '0,1,2,3,4,5',
    `resumed without gap or duplicate: ${received.map((e) => e.n).join(',')}`);
} finally {
  await browser.close();
}
process.exit(0);
