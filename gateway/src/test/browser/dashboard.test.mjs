// The dashboard example (examples/dashboard/index.html) in a browser: the repository's files are
// served from another origin than the gateway's, as a static site would serve them; the test publishes documents to a snapshot topic
// (TOPIC) and passes when the page's table shows the last one. Security is off in this test.
//
// Environment: BASE_URL, TOPIC, REPOSITORY (the repository's root), CHROMIUM.
import { chromium } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const { BASE_URL: base, TOPIC: topic, REPOSITORY: repository } = process.env;

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

async function publish(body) {
  const response = await fetch(`${base}/api/v1/publish/${topic}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`publish answered ${response.status}`);
}

// The repository served as a static site on another port, as `python3 -m http.server` would.
const site = http.createServer(async (request, response) => {
  const file = path.join(repository, path.normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)));
  try {
    const body = await readFile(file);
    response.writeHead(200, { 'Content-Type': file.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.log('page error: ' + error.message));
  page.on('console', (message) => console.log('console: ' + message.text()));
  await publish({ EURUSD: 1.08, GBPUSD: 1.27 });
  await page.goto(`${origin}/examples/dashboard/index.html?gateway=${encodeURIComponent(base)}&topic=${topic}`);
  await page.waitForFunction(() => document.getElementById('document').textContent.includes('1.08'), null, { timeout: 30_000 });
  await publish({ EURUSD: 1.09, GBPUSD: 1.27, USDJPY: 151.2 });
  await page.waitForFunction(() => document.getElementById('document').textContent.includes('151.2'), null, { timeout: 30_000 });
  const shown = await page.evaluate(() => ({
    rows: [...document.querySelectorAll('#document tr')].map((row) => [row.cells.length ? row.querySelector('th').textContent : '', row.querySelector('pre').textContent]),
    state: document.getElementById('state').textContent,
    changes: Number(document.getElementById('changes').textContent),
  }));
  expect(JSON.stringify(shown.rows.sort()) === JSON.stringify([['EURUSD', '1.09'], ['GBPUSD', '1.27'], ['USDJPY', '151.2']]), 'the dashboard shows the last document');
  expect(shown.state === 'connected' && shown.changes >= 2, `connected, ${shown.changes} changes shown`);
  await page.screenshot({ path: 'target/dashboard.png' });
} catch (error) {
  const pages = browser.contexts().flatMap((context) => context.pages());
  if (pages.length > 0) console.log('page: ' + await pages[0].evaluate(() => document.body.innerText).catch((e) => e.message));
  console.log('not ok - ' + (error.stack ?? error));
  process.exitCode = 1;
} finally {
  await browser.close();
  site.close();
  process.exit(process.exitCode ?? 0);
}
