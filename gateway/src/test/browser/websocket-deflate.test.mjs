// Chromium's WebSocket with permessage-deflate, which it offers by itself: the connection
// negotiates it, and every message (events of about 20 KB, a refused subscribe's problem, the
// answer to a second topic) arrives whole and in order. Security is off.
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
  await page.goto(`${base}/actuator/health/liveness`);
  const pad = 'quote '.repeat(3000);
  for (let n = 0; n < 5; n++) {
    const response = await fetch(`${base}/api/v1/publish/${topic}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ n, pad }),
    });
    if (response.status !== 202) throw new Error(`publish answered ${response.status}`);
  }
  const result = await page.evaluate(({ topic, count }) => new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${location.host}/api/v1/ws`);
    const messages = [];
    socket.onerror = () => reject(new Error('the WebSocket failed'));
    socket.onopen = () => {
      socket.send(JSON.stringify({ subscribe: { topic: 'no-such-topic' } }));
      socket.send(JSON.stringify({ subscribe: { topic, lastEventId: 'earliest' } }));
    };
    socket.onmessage = (message) => {
      messages.push(JSON.parse(message.data));
      if (messages.length === count + 1) {
        resolve({ extensions: socket.extensions, messages });
        socket.close();
      }
    };
    setTimeout(() => reject(new Error(`only ${messages.length} messages`)), 20_000);
  }), { topic, count: 5 });
  expect(result.extensions.includes('permessage-deflate'), `permessage-deflate negotiated (${result.extensions})`);
  expect(result.messages[0].type === 'problem' && result.messages[0].data.type.endsWith('/topic-not-found'),
    'the refused subscribe\'s problem arrived compressed and whole');
  const events = result.messages.slice(1);
  expect(events.every((m, n) => m.type === 'event' && m.topic === topic && m.data.n === n && m.data.pad === pad),
    'five events of 18 KB arrived whole and in order');
} catch (error) {
  console.log('not ok - ' + (error.stack ?? error));
  process.exitCode = 1;
} finally {
  await browser.close();
  process.exit(process.exitCode ?? 0);
}
