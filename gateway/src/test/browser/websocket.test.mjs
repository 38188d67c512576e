// A browser's WebSocket on three topics, cut by the network and reconnected. The page subscribes
// to TOPICS over PROXY_URL (a TCP proxy to the gateway), keeps each topic's last id, and on any
// close reconnects and subscribes again with those ids, as a front end would. Three events per
// topic, then the test cuts every proxied connection (it prints `cut-now` and waits for a `cut`
// line on its standard input), three more per topic while the page reconnects. Passes when each
// topic received 0..5 exactly once and in order.
//
// Environment: BASE_URL (the gateway, for publishing), PROXY_URL (the proxy, for the page),
// TOKEN (a token that may subscribe and publish), TOPICS (comma-separated event topics),
// CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import readline from 'node:readline';

const base = process.env.BASE_URL;
const proxy = process.env.PROXY_URL;
const token = process.env.TOKEN;
const topics = process.env.TOPICS.split(',');
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

async function publish(topic, n) {
  const response = await fetch(`${base}/api/v1/publish/${topic}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ n }),
  });
  if (response.status !== 202) throw new Error(`publish ${topic} ${n} answered ${response.status}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${proxy}/actuator/health/liveness`);
  await page.evaluate(({ topics, token }) => {
    window.received = Object.fromEntries(topics.map((t) => [t, []]));
    window.lastIds = {};
    window.opens = 0;
    window.problems = [];
    const connect = () => {
      const ws = new WebSocket(`ws://${location.host}/api/v1/ws?access_token=${encodeURIComponent(token)}`);
      ws.onopen = () => {
        window.opens += 1;
        for (const topic of topics) {
          const subscribe = { topic };
          if (window.lastIds[topic]) subscribe.lastEventId = window.lastIds[topic];
          ws.send(JSON.stringify({ subscribe }));
        }
      };
      ws.onmessage = (message) => {
        const { topic, type, id, data } = JSON.parse(message.data);
        if (type === 'problem') { window.problems.push(data); return; }
        if (type !== 'event') return;
        window.received[topic].push({ id, n: data.n });
        window.lastIds[topic] = id;
      };
      ws.onclose = () => setTimeout(connect, 200);
      window.socket = ws;
    };
    connect();
  }, { topics, token });
  const waitFor = (expression, arg, what) => page.waitForFunction(expression, arg, { timeout: 60_000 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  const count = (n) => waitFor((n) => Object.values(window.received).every((r) => r.length >= n), n,
    `${n} events on every topic`);

  await waitFor(() => window.opens >= 1, null, 'the socket to open');
  // The subscribes are sent on open; one round trip later they are in place.
  await page.waitForTimeout(500);
  for (const n of [0, 1, 2]) for (const topic of topics) await publish(topic, n);
  await count(3);

  console.log('cut-now');
  const answer = await lines.next();
  expect(answer.value === 'cut', 'the proxy cut the connection');
  for (const n of [3, 4, 5]) for (const topic of topics) await publish(topic, n);
  await count(6);
  await page.waitForTimeout(1000);
  const { received, opens, problems } = await page.evaluate(
    () => ({ received: window.received, opens: window.opens, problems: window.problems }));
  expect(opens >= 2, `the page reconnected (${opens} opens)`);
  expect(problems.length === 0, `no problem message (${JSON.stringify(problems)})`);
  for (const topic of topics) {
    const ns = received[topic].map((e) => e.n).join(',');
    expect(new Set(received[topic].map((e) => e.id)).size === received[topic].length, `${topic}: no id seen twice`);
    expect(ns === '0,1,2,3,4,5', `${topic} resumed without gap or duplicate: ${ns}`);
  }
} finally {
  await browser.close();
}
process.exit(0);
