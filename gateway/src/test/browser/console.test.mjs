// Drives the streamgate console in headless Chromium: token, create a topic, publish, watch the
// live view, cut the connection and see it resume without a gap, a snapshot document rebuilt,
// a webhook registered and pinged, a topic edited and deleted. A screenshot of each page goes to
// SCREENSHOTS. Exits non-zero on the first failed expectation.
//
// Environment: BASE_URL (the gateway), TOKEN (an admin JWT), SCREENSHOTS (a directory),
// CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import net from 'node:net';
import http from 'node:http';
import { mkdirSync } from 'node:fs';

const gateway = new URL(process.env.BASE_URL);
const token = process.env.TOKEN;
const shots = process.env.SCREENSHOTS ?? 'target/console-screenshots';
mkdirSync(shots, { recursive: true });

function expect(condition, message) {
  if (!condition) throw new Error('Expectation failed: ' + message);
  console.log('ok - ' + message);
}

// A TCP proxy between the browser and the gateway, so that the test can cut every connection.
const sockets = new Set();
const proxy = net.createServer((client) => {
  const upstream = net.connect(Number(gateway.port), gateway.hostname);
  for (const socket of [client, upstream]) {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }
  client.pipe(upstream).pipe(client);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${proxy.address().port}`;
const cutConnections = () => { for (const socket of sockets) socket.destroy(); };

// A webhook endpoint.
const received = [];
let tokensIssued = 0;
const hooks = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => { body += chunk; });
  request.on('end', () => {
    // /fail answers like a broken receiver, with a JSON error; /source-fail is a failing poller source.
    // /token is the endpoint's OAuth 2.0 authorization server (client credentials).
    if (request.url === '/token') {
      const expected = 'Basic ' + Buffer.from('console:oauth-s3cr3t-value').toString('base64');
      if (request.headers.authorization !== expected || !body.includes('grant_type=client_credentials')) {
        response.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"invalid_client"}');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ access_token: `tok-${++tokensIssued}`, token_type: 'Bearer', expires_in: 300 }));
      return;
    }
    if (request.url === '/fail' || request.url === '/source-fail') {
      response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"not today"}');
      return;
    }
    received.push({ url: request.url, headers: request.headers, body });
    response.writeHead(204).end();
  });
});
await new Promise((resolve) => hooks.listen(0, '127.0.0.1', resolve));

async function publishDirectly(topic, json) {
  const response = await fetch(new URL(`/api/v1/publish/${topic}`, gateway), {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(json),
  });
  if (response.status !== 202) throw new Error(`publish answered ${response.status}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (error) => pageErrors.push(error.message));
page.on('dialog', (dialog) => dialog.accept());
try {
  // Without a token the API refuses, and the console says so.
  await page.goto(`${base}/console`);
  await page.locator('#notice').filter({ hasText: 'Unauthorized' }).waitFor();
  expect(true, 'without a token the console shows the 401 problem');

  await page.fill('#token', token);
  await page.click('#token-form button');
  await page.locator('#whoami').filter({ hasText: 'expires' }).waitFor();
  await page.screenshot({ path: `${shots}/1-token.png`, fullPage: true });
  expect(true, 'the token is accepted');

  // Create an event topic through the form.
  await page.locator('#create').evaluate((details) => { details.open = true; });
  await page.fill('#create-json', JSON.stringify({ id: 'console-demo', payloadType: 'event', publisher: { type: 'http-post' } }));
  await page.click('#create-form button');
  await page.locator('#topics button[data-topic="console-demo"]').waitFor();
  await page.locator('#topic-title').filter({ hasText: 'console-demo' }).waitFor();
  expect(true, 'a topic created in the console is listed and selected');

  // Live view through the real stream endpoint (the token goes as the documented cookie).
  await page.click('#live-connect');
  await page.locator('#live-state.open').waitFor();
  await page.fill('#publish-json', '{"n":0}');
  await page.click('#publish-form button');
  await page.locator('#frames li[data-id$=":0"]').waitFor();
  expect((await page.textContent('#frames li[data-id$=":0"]')).includes('"n":0'), 'a published event appears in the live view');
  await page.screenshot({ path: `${shots}/2-live.png`, fullPage: true });

  // Cut the connection; events published meanwhile arrive after the automatic reconnect.
  cutConnections();
  await page.locator('#live-state.retrying').waitFor();
  for (let n = 1; n <= 3; n++) await publishDirectly('console-demo', { n });
  await page.locator('#live-state.open').waitFor({ timeout: 20000 });
  await page.locator('#frames li[data-id$=":3"]').waitFor({ timeout: 20000 });
  await publishDirectly('console-demo', { n: 4 });
  await page.locator('#frames li[data-id$=":4"]').waitFor();
  const ids = await page.$$eval('#frames li', (items) => items.map((item) => item.dataset.id).reverse());
  // Cursors are <incarnation>:<offsets>: one incarnation, offsets 0 to 4.
  expect(JSON.stringify(ids.map((id) => id.split(':').pop())) === JSON.stringify(['0', '1', '2', '3', '4'])
    && new Set(ids.map((id) => id.split(':')[0])).size === 1, `resumed without gap or duplicate: ${ids}`);
  await page.screenshot({ path: `${shots}/3-resumed.png`, fullPage: true });

  // Status figures.
  await page.click('nav button[data-tab="status"]');
  await page.locator('#status dd').filter({ hasText: /:4$/ }).first().waitFor();
  expect(true, 'the status shows the position');
  await page.screenshot({ path: `${shots}/4-status.png`, fullPage: true });

  // Webhooks: register, ping, attempts.
  await page.click('nav button[data-tab="webhooks"]');
  await page.locator('#register').evaluate((details) => { details.open = true; });
  await page.fill('#webhook-url', `http://127.0.0.1:${hooks.address().port}/hook`);
  await page.fill('#webhook-description', 'console test');
  await page.click('#webhook-form button');
  await page.locator('#webhook-secret').filter({ hasText: 'whsec_' }).waitFor();
  await page.locator('#webhooks tr').first().waitFor();
  expect(true, 'a webhook registered in the console is listed with its secret shown once');
  const shownSecret = await page.textContent('#secret-value');
  await page.click('#copy-secret');
  await page.locator('#copy-secret').filter({ hasText: 'Copied' }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText()) === shownSecret, 'the copy button puts the secret on the clipboard');
  expect(await page.inputValue('#webhook-url') === '' && await page.inputValue('#webhook-description') === '',
    'the registration form is empty again after success');
  await page.click('#webhooks tr button:text("Test")');
  await page.locator('#attempts td').filter({ hasText: 'ping' }).first().waitFor();
  expect(received.some((delivery) => delivery.body.includes('"type":"ping"') && delivery.headers['webhook-signature']),
    'the ping reached the endpoint, signed');
  await publishDirectly('console-demo', { n: 5 });
  for (let i = 0; i < 50 && !received.some((d) => d.body.includes('"n":5')); i++) await new Promise((r) => setTimeout(r, 200));
  expect(received.some((d) => d.body.includes('"n":5')), 'the webhook delivers the next event');
  // The attempt is logged just after the delivery: look again until it shows.
  const eventAttempt = page.locator('#attempts td').filter({ hasText: /^event$/ }).first();
  for (let i = 0; i < 20 && !(await eventAttempt.isVisible()); i++) {
    await page.click('#webhooks tr button:text("Attempts")');
    await page.waitForTimeout(250);
  }
  await eventAttempt.waitFor();
  await page.screenshot({ path: `${shots}/5-webhooks.png`, fullPage: true });

  // A failing endpoint: its attempts show the answer's status and the start of its body.
  await page.locator('#register').evaluate((details) => { details.open = true; });
  await page.fill('#webhook-url', `http://127.0.0.1:${hooks.address().port}/fail`);
  await page.click('#webhook-form button');
  const failingRow = page.locator('#webhooks tr', { hasText: '/fail' });
  await failingRow.waitFor();
  const beforeSix = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 100));
  await publishDirectly('console-demo', { n: 6 });
  const failedAttempt = page.locator('#attempts tr[data-outcome="retrying"]');
  for (let i = 0; i < 40 && (await failedAttempt.count()) === 0; i++) {
    await failingRow.locator('button:text("Attempts")').click();
    await page.waitForTimeout(250);
  }
  await failedAttempt.first().locator('td.response summary').click();
  expect((await failedAttempt.first().locator('td.status-code').textContent()) === '500'
    && (await failedAttempt.first().locator('td.response pre').textContent()).includes('"error":"not today"'),
  'a failed attempt shows the status and the start of the body the endpoint answered');
  expect(/^\d+ ms$/.test(await failedAttempt.first().locator('td:nth-child(6)').textContent()), 'attempt durations read as ms');
  await page.screenshot({ path: `${shots}/9-attempt-response.png`, fullPage: true });

  // An endpoint behind OAuth 2.0: the ping carries a bearer token, the client secret is never shown.
  await page.locator('#register').evaluate((details) => { details.open = true; });
  await page.fill('#webhook-url', `http://127.0.0.1:${hooks.address().port}/secured`);
  await page.fill('#webhook-oauth2', JSON.stringify({ tokenUrl: `http://127.0.0.1:${hooks.address().port}/token`,
    clientId: 'console', clientSecret: 'oauth-s3cr3t-value', scope: 'hooks' }));
  await page.click('#webhook-form button');
  const securedRow = page.locator('#webhooks tr', { hasText: 'OAuth 2.0' });
  await securedRow.waitFor();
  await securedRow.locator('button:text("Test")').click();
  for (let i = 0; i < 50 && !received.some((d) => d.url === '/secured'); i++) await new Promise((r) => setTimeout(r, 200));
  const securedPing = received.find((d) => d.url === '/secured');
  expect(securedPing?.headers.authorization === 'Bearer tok-1' && securedPing.body.includes('"type":"ping"'),
    'a webhook registered with OAuth 2.0 client credentials sends the bearer token it fetched');
  // The endpoint has the ping before the gateway answers the console: wait for that answer, or
  // its notice could replace the one the next step looks for.
  await page.locator('#notice:not([hidden])').filter({ hasText: 'Ping delivered' }).waitFor();
  const pageText = await page.content();
  const leak = pageText.indexOf('oauth-s3cr3t-value');
  expect(leak < 0 && await page.inputValue('#webhook-oauth2') === '',
    `the client secret is not on the page after registration${leak < 0 ? '' : ': ' + pageText.slice(Math.max(0, leak - 300), leak + 50)}`);
  await page.screenshot({ path: `${shots}/9b-webhook-oauth2.png`, fullPage: true });

  // A subscription into a Kafka topic of the gateway's own cluster: the form takes it instead of a URL, and an
  // unknown Kafka topic is refused with the reason.
  await page.locator('#register').evaluate((details) => { details.open = true; });
  await page.fill('#webhook-kafka', JSON.stringify({ topic: 'no-such-kafka-topic' }));
  await page.click('#webhook-form button');
  await page.locator('#notice:not([hidden])').filter({ hasText: 'no-such-kafka-topic' }).waitFor();
  expect(true, 'a Kafka target whose topic does not exist is refused with the reason');
  await page.fill('#webhook-kafka', '');

  // History: from the oldest retained event, and from a point in time.
  await page.click('nav button[data-tab="live"]');
  await page.selectOption('#live-from', 'earliest');
  await page.click('#live-connect');
  await page.locator('#frames li[data-id$=":0"]').waitFor();
  await page.locator('#frames li[data-id$=":6"]').waitFor();
  expect(await page.locator('#frames li').count() === 7, 'from the oldest retained event: all 7 events');
  await page.selectOption('#live-from', 'time');
  await page.fill('#live-from-value', beforeSix);
  await page.click('#live-connect');
  await page.locator('#frames li[data-id$=":6"]').waitFor();
  await page.waitForTimeout(500);
  expect(await page.locator('#frames li').count() === 1, `from ${beforeSix}: only what was published since`);
  // Frames are one line each; opened, the JSON is pretty-printed.
  await page.locator('#frames li[data-id$=":6"] summary').click();
  expect((await page.textContent('#frames li[data-id$=":6"] pre')) === '{\n  "n": 6\n}', 'an opened frame shows its JSON indented');
  await page.screenshot({ path: `${shots}/10-history.png`, fullPage: true });
  await page.selectOption('#live-from', 'live');

  // An error banner belongs to its action: the next view does not keep it.
  await page.click('nav button[data-tab="edit"]');
  await page.fill('#edit-json', '{not json');
  await page.click('#edit-form button[type="submit"]');
  await page.locator('#notice:not([hidden])').waitFor();
  await page.click('nav button[data-tab="status"]');
  expect(await page.locator('#notice').isHidden(), 'switching views clears the last error');

  // Health in the list: a failing webhook, a failing poller source.
  const created = await fetch(new URL('/api/v1/topics', gateway), {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ id: 'console-poll', payloadType: 'snapshot', publisher: { type: 'http-poller',
      url: `http://127.0.0.1:${hooks.address().port}/source-fail`, pollingPeriod: 'PT1S', retry: { maxAttempts: 1 } } }),
  });
  if (created.status !== 201) throw new Error(`creating the poller topic answered ${created.status}`);
  const webhookBadge = page.locator('#topics li[data-topic="console-demo"] [data-health="webhook-failing"]');
  const pollBadge = page.locator('#topics li[data-topic="console-poll"] [data-health="poll-failing"]');
  for (let i = 0; i < 60 && ((await webhookBadge.count()) === 0 || (await pollBadge.count()) === 0); i++) {
    await page.click('#refresh-topics');
    await page.waitForTimeout(500);
  }
  expect((await webhookBadge.textContent()) === '1 webhook failing', 'the list shows the topic with a failing webhook');
  expect(await pollBadge.count() === 1, 'the list shows the topic whose poller fails');
  expect(await page.locator('#topics li[data-topic="console-demo"] [data-health="poll-failing"]').count() === 0,
    'a healthy poller shows no badge');
  await page.screenshot({ path: `${shots}/11-health.png`, fullPage: true });

  // Durations read as a person reads them.
  await page.click('#topics button[data-topic="console-poll"]');
  await page.locator('#topic-title').filter({ hasText: 'console-poll' }).waitFor();
  await page.click('nav button[data-tab="status"]');
  await page.locator('#status dd').filter({ hasText: 'every 1 s' }).waitFor();
  await page.locator('#status dd').filter({ hasText: /: failed in \d+ ms/ }).waitFor();
  expect(await page.locator('#status dd').filter({ hasText: '7 d' }).count() === 1, 'durations are human-readable (retention 7 d, polling every 1 s, a poll in ms)');
  await page.screenshot({ path: `${shots}/12-durations.png`, fullPage: true });

  // A topic mirrored from a Kafka topic of the gateway's own cluster: a missing source is refused with the
  // reason; the status shows the source and how far the mirror got.
  await page.locator('#create').evaluate((details) => { details.open = true; });
  await page.fill('#create-json', JSON.stringify({ id: 'console-mirror', publisher: { type: 'kafka', topic: 'no-such-source' } }));
  await page.click('#create-form button');
  await page.locator('#notice:not([hidden])').filter({ hasText: 'no-such-source does not exist' }).waitFor();
  await page.fill('#create-json', JSON.stringify({ id: 'console-mirror', publisher: { type: 'kafka', topic: process.env.KAFKA_SOURCE } }));
  await page.click('#create-form button');
  await page.locator('#topic-title').filter({ hasText: 'console-mirror' }).waitFor();
  await page.click('nav button[data-tab="status"]');
  await page.locator('#status dd').filter({ hasText: `Kafka topic ${process.env.KAFKA_SOURCE} at the gateway's cluster` }).waitFor();
  for (let i = 0; i < 30 && await page.locator('#status dd').filter({ hasText: 'next to mirror: partition 0 offset' }).count() === 0; i++) {
    await new Promise((r) => setTimeout(r, 500));
    await page.click('nav button[data-tab="status"]');
  }
  expect(await page.locator('#status dt').filter({ hasText: 'mirror' }).count() === 1
    && await page.locator('#status dd').filter({ hasText: 'next to mirror: partition 0 offset' }).count() === 1,
  'a kafka topic\'s status shows its source and how far it mirrored');
  await page.screenshot({ path: `${shots}/12b-mirror.png`, fullPage: true });

  // A snapshot topic: the document rebuilt from the snapshot and the patches.
  await page.locator('#create').evaluate((details) => { details.open = true; });
  await page.fill('#create-json', JSON.stringify({ id: 'console-doc', payloadType: 'snapshot', publisher: { type: 'http-post' } }));
  await page.click('#create-form button');
  await page.locator('#topic-title').filter({ hasText: 'console-doc' }).waitFor();
  expect((await page.inputValue('#create-json')).includes('"id": "demo"'), 'the creation form is back to its template after success');
  await page.click('#live-connect');
  await page.locator('#live-state.open').waitFor();
  await publishDirectly('console-doc', { score: [1, 0], team: 'a' });
  await publishDirectly('console-doc', { score: [2, 0], team: 'a', note: 'goal' });
  await page.locator('#frames li[data-type="patch"]').waitFor();
  const documentShown = JSON.parse(await page.textContent('#document'));
  expect(JSON.stringify(documentShown) === JSON.stringify({ score: [2, 0], team: 'a', note: 'goal' }),
    'the snapshot topic\'s document is rebuilt from snapshot and patch');
  await page.screenshot({ path: `${shots}/6-document.png`, fullPage: true });

  // Edit, then delete.
  await page.click('nav button[data-tab="edit"]');
  const edited = JSON.parse(await page.inputValue('#edit-json'));
  edited.name = 'Scores';
  await page.fill('#edit-json', JSON.stringify(edited, null, 2));
  await page.click('#edit-form button[type="submit"]');
  await page.locator('#topic-title').filter({ hasText: 'Scores' }).waitFor();
  expect(true, 'the topic is edited');
  await page.screenshot({ path: `${shots}/7-edit.png`, fullPage: true });
  await page.click('#delete-topic');
  await page.locator('#notice').filter({ hasText: 'Deleted console-doc' }).waitFor();
  expect(await page.locator('#topics button[data-topic="console-doc"]').count() === 0, 'the deleted topic is gone from the list');
  await page.screenshot({ path: `${shots}/8-deleted.png`, fullPage: true });

  expect(pageErrors.length === 0, `no script errors in the page ${pageErrors}`);
} catch (error) {
  await page.screenshot({ path: `${shots}/failure.png`, fullPage: true }).catch(() => {});
  console.error(error);
  process.exitCode = 1;
} finally {
  await browser.close();
  proxy.close();
  hooks.close();
  cutConnections();
}
