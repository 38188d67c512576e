// A browser's EventSource on a compressed stream: Chromium asks for gzip by itself, and each event
// must reach the page before the next is published (not when the stream ends). Security is off.
//
// Environment: BASE_URL, TOPIC (an event topic), CHROMIUM.
import { chromium } from 'playwright-core';

const { BASE_URL: base, TOPIC: topic } = process.env;

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  const encodings = [];
  page.on('response', (response) => {
    if (response.url().includes('/api/v1/stream/')) encodings.push(response.headers()['content-encoding']);
  });
  await page.goto(`${base}/actuator/health/liveness`);
  await page.evaluate((topic) => {
    window.received = [];
    window.opened = false;
    const source = new EventSource(`/api/v1/stream/${topic}`);
    source.onopen = () => { window.opened = true; };
    source.addEventListener('event', (e) => window.received.push(JSON.parse(e.data).n));
  }, topic);
  await page.waitForFunction(() => window.opened, null, { timeout: 30_000 });
  await page.waitForTimeout(500);
  for (let n = 0; n < 5; n++) {
    const response = await fetch(`${base}/api/v1/publish/${topic}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ n, pad: 'quote '.repeat(300) }),
    });
    if (response.status !== 202) throw new Error(`publish answered ${response.status}`);
    await page.waitForFunction((n) => window.received.length === n + 1, n, { timeout: 5_000 })
      .catch(() => { throw new Error(`event ${n} did not arrive on its own`); });
  }
  expect(encodings[0] === 'gzip', `the stream came gzip-compressed (${encodings})`);
  const received = await page.evaluate(() => window.received);
  expect(JSON.stringify(received) === '[0,1,2,3,4]', 'each event arrived before the next was published');
} catch (error) {
  console.log('not ok - ' + (error.stack ?? error));
  process.exitCode = 1;
} finally {
  await browser.close();
  process.exit(process.exitCode ?? 0);
}
