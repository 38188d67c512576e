// The event-stream parser against the HTML standard's rules, fed in awkward pieces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser, StreamgateProblem, ProblemTypes } from '../../dist/index.js';

function parse(chunks) {
  const events = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.feed(chunk);
  return events;
}

test('events split anywhere, with CRLF, CR or LF line ends', () => {
  const stream = 'retry: 3000\r\n\r\nid: a:1\r\nevent: event\r\ndata: {"n":1}\r\n\r\n: heartbeat\n\nid: a:2\revent: patch\rdata: [1,\rdata: 2]\r\r';
  for (const size of [1, 2, 3, 7, stream.length]) {
    const chunks = [];
    for (let i = 0; i < stream.length; i += size) chunks.push(stream.substring(i, i + size));
    assert.deepEqual(parse(chunks), [
      { event: 'event', data: '{"n":1}', id: 'a:1' },
      { event: 'patch', data: '[1,\n2]', id: 'a:2' },
    ], `chunks of ${size}`);
  }
});

test('an event without an id has none, and one without a name is a message', () => {
  assert.deepEqual(parse(['event: token-expiring\ndata: {}\n\ndata:x\n\n']), [
    { event: 'token-expiring', data: '{}', id: undefined },
    { event: 'message', data: 'x', id: undefined },
  ]);
});

test('an unfinished event is not handed on', () => {
  assert.deepEqual(parse(['id: 1\ndata: {"n":1}\n']), []);
});

test('problems carry their short type and say whether the stream goes on', () => {
  const expired = new StreamgateProblem({ type: 'https://streamgate.dev/problems/position-expired', title: 'Position expired', status: 410 }, 'orders');
  assert.equal(expired.type, ProblemTypes.POSITION_EXPIRED);
  assert.equal(expired.topic, 'orders');
  assert.equal(expired.informational, true);
  const missing = new StreamgateProblem({ type: 'https://streamgate.dev/problems/topic-not-found', title: 'Topic not found', status: 404, detail: 'no such topic' });
  assert.equal(missing.type, ProblemTypes.TOPIC_NOT_FOUND);
  assert.equal(missing.transient, false);
  assert.equal(missing.message, 'Topic not found: no such topic');
  assert.equal(new StreamgateProblem({ type: 'https://streamgate.dev/problems/kafka-unavailable', status: 503 }).transient, true);
});
