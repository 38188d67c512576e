// streamgate console: plain ES module, no framework. Talks to the documented HTTP API only.
const $ = (selector) => document.querySelector(selector);
const MAX_FRAMES = 500;
const state = { token: sessionStorage.getItem('streamgate.token') || '', topic: null, etag: null, source: null, document: undefined };

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
  return node;
}

function notice(text, info = false) {
  const box = $('#notice');
  box.textContent = text;
  box.className = info ? 'info' : '';
  box.hidden = !text;
}

async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (state.token) init.headers.Authorization = 'Bearer ' + state.token;
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const problem = json && json.detail ? `${json.title}: ${json.detail}` : `${response.status} ${response.statusText}`;
    throw new Error(problem);
  }
  return { json, response };
}

function guard(action) {
  return async (event) => {
    event?.preventDefault?.();
    try {
      notice('');
      await action(event);
    } catch (error) {
      notice(error.message);
    }
  };
}

// Token: sent as a header to the API and as the documented cookie to streams (EventSource
// cannot set headers).
function useToken(token) {
  state.token = token.trim();
  sessionStorage.setItem('streamgate.token', state.token);
  const cookie = state.token ? `streamgate_token=${encodeURIComponent(state.token)}` : 'streamgate_token=; max-age=0';
  document.cookie = `${cookie}; path=/api/v1/stream; SameSite=Strict`;
  $('#whoami').textContent = state.token ? describeToken(state.token) : 'no token';
}

function describeToken(token) {
  try {
    const claims = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    const expires = claims.exp ? new Date(claims.exp * 1000).toISOString() : 'never';
    return `${claims.sub ?? 'token'}, expires ${expires}`;
  } catch {
    return 'token set';
  }
}

async function loadTopics() {
  const { json } = await api('GET', '/api/v1/topics?size=100');
  const list = $('#topics');
  list.replaceChildren(...json.items.map((topic) => el('li', { 'data-topic': topic.id },
    el('button', { type: 'button', 'data-topic': topic.id, 'aria-current': String(topic.id === state.topic?.id), onclick: guard(() => selectTopic(topic.id)) },
      `${topic.id} `, el('span', { class: 'muted' }, `${topic.payloadType} · ${topic.publisher.type}`)),
    el('span', { class: 'health' }))));
  if (json.total > json.items.length) list.append(el('li', { class: 'muted' }, `… ${json.total - json.items.length} more`));
  // Health at a glance: each listed topic's status, fetched side by side; a topic whose
  // status cannot be read keeps an empty badge line rather than failing the list.
  await Promise.allSettled(json.items.map(async (topic) => {
    const { json: status } = await api('GET', `/api/v1/topics/${encodeURIComponent(topic.id)}/status`);
    list.querySelector(`li[data-topic="${CSS.escape(topic.id)}"] .health`)?.replaceChildren(...healthBadges(status));
  }));
}

function healthBadges(status) {
  const badges = [];
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (status.lastPoll?.outcome === 'failed') {
    badges.push(el('span', { class: 'badge closed', 'data-health': 'poll-failing', title: status.lastPoll.detail ?? '' }, 'poll failing'));
  }
  if (status.webhooks?.failing > 0) {
    badges.push(el('span', { class: 'badge retrying', 'data-health': 'webhook-failing' }, `${plural(status.webhooks.failing, 'webhook')} failing`));
  }
  if (status.webhooks?.disabled > 0) {
    badges.push(el('span', { class: 'badge closed', 'data-health': 'webhook-disabled' }, `${plural(status.webhooks.disabled, 'webhook')} disabled`));
  }
  return badges;
}

// ISO-8601 durations (PT0.032S, PT1S, P7D) and milliseconds as a person reads them.
function humanDuration(iso) {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?$/.exec(iso ?? '');
  if (!match) return iso ?? '–';
  const [, d = 0, h = 0, m = 0, sec = 0] = match;
  return humanMillis((((Number(d) * 24 + Number(h)) * 60 + Number(m)) * 60 + Number(sec)) * 1000);
}

function humanMillis(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const units = [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]];
  const parts = [];
  let rest = Math.round(ms / 1000) * 1000;
  for (const [name, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.join(' ');
}

function ago(time) {
  return time ? `${new Date(time).toLocaleString()} (${humanMillis(Math.max(0, Date.now() - Date.parse(time)))} ago)` : '–';
}

async function selectTopic(id) {
  disconnect();
  const { json, response } = await api('GET', `/api/v1/topics/${encodeURIComponent(id)}`);
  state.topic = json;
  state.etag = response.headers.get('ETag');
  $('#topic-panel').hidden = false;
  $('#topic-title').textContent = json.name && json.name !== json.id ? `${json.name} — ${json.id}` : json.id;
  for (const select of [$('#live-mode'), $('#webhook-mode')]) {
    select.replaceChildren(...json.subscriptionModes.map((mode) => el('option', mode === json.defaultSubscriptionMode ? { selected: '' } : {}, mode)));
  }
  $('#publish-form').hidden = json.publisher.type !== 'http-post';
  $('#edit-json').value = JSON.stringify(json, null, 2);
  $('#frames').replaceChildren();
  $('#document-box').hidden = true;
  $('#live-count').textContent = '0';
  $('#live-last-id').textContent = '–';
  $('#attempts-box').hidden = true;
  $('#webhook-secret').hidden = true;
  showTab('live');
  await loadTopics();
}

function showTab(name) {
  // A banner belongs to the action that raised it, not to the next view.
  notice('');
  for (const button of document.querySelectorAll('nav button')) button.setAttribute('aria-pressed', String(button.dataset.tab === name));
  for (const tab of document.querySelectorAll('.tab')) tab.hidden = tab.id !== `tab-${name}`;
  if (name === 'status') guard(loadStatus)();
  if (name === 'webhooks') guard(loadWebhooks)();
}

// Live view: the real stream endpoint through EventSource, which reconnects by itself and
// resumes with Last-Event-ID, so nothing is missed across a cut connection.
async function connect() {
  disconnect();
  const mode = $('#live-mode').value;
  const from = await startCursor();
  state.document = undefined;
  $('#frames').replaceChildren();
  $('#live-count').textContent = '0';
  const query = new URLSearchParams({ mode });
  if (from) query.set('lastEventId', from);
  const source = new EventSource(`/api/v1/stream/${encodeURIComponent(state.topic.id)}?${query}`);
  state.source = source;
  setLiveState('connecting', '');
  source.onopen = () => setLiveState('open', 'open');
  source.onerror = () => setLiveState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting…',
    source.readyState === EventSource.CLOSED ? 'closed' : 'retrying');
  for (const type of ['snapshot', 'patch', 'event', 'problem']) {
    source.addEventListener(type, (message) => frame(type, message));
  }
}

// Where the live view starts: now, the oldest retained event, after a cursor, or at a
// time (the API turns the time into a cursor). EventSource then resumes by itself with
// Last-Event-ID, which wins over the query's lastEventId.
async function startCursor() {
  const value = $('#live-from-value').value.trim();
  switch ($('#live-from').value) {
    case 'earliest': return 'earliest';
    case 'cursor':
      if (!value) throw new Error('Give the cursor to start after (an id the stream or a publish answered)');
      return value;
    case 'time': {
      if (!value) throw new Error('Give the time to start from, such as 2026-11-21T10:00:00Z');
      const { json } = await api('GET', `/api/v1/topics/${encodeURIComponent(state.topic.id)}/cursor?at=${encodeURIComponent(value)}`);
      return json.id;
    }
    default: return null;
  }
}

function disconnect() {
  if (state.source) {
    state.source.close();
    state.source = null;
  }
  setLiveState('not connected', '');
}

function setLiveState(text, css) {
  const badge = $('#live-state');
  badge.textContent = text;
  badge.className = `badge ${css}`;
}

function frame(type, message) {
  // Only messages are frames (EventSource's own 'error' event is not one).
  if (!(message instanceof MessageEvent)) return;
  let data;
  try {
    data = JSON.parse(message.data);
  } catch {
    data = message.data;
  }
  if (type === 'snapshot') state.document = data;
  if (type === 'patch' && state.document !== undefined) {
    state.document = window.jsonpatch.applyPatch(state.document, data, false, false).newDocument;
  }
  if (state.document !== undefined) {
    $('#document-box').hidden = false;
    $('#document').textContent = JSON.stringify(state.document, null, 2);
  }
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  const pretty = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
  // One line per frame; open it for the whole JSON, indented.
  const item = el('li', { 'data-id': message.lastEventId, 'data-type': type },
    el('details', {},
      el('summary', {}, el('span', { class: 'type' }, type), ` id=${message.lastEventId || '–'} `,
        el('span', { class: 'muted' }, new Date().toLocaleTimeString()), ' ', text.length > 200 ? text.slice(0, 200) + '…' : text),
      el('pre', { class: 'json' }, pretty)));
  const frames = $('#frames');
  frames.prepend(item);
  while (frames.children.length > MAX_FRAMES) frames.lastElementChild.remove();
  $('#live-count').textContent = String(Number($('#live-count').textContent) + 1);
  if (message.lastEventId) $('#live-last-id').textContent = message.lastEventId;
}

async function publish() {
  const { json } = await api('POST', `/api/v1/publish/${encodeURIComponent(state.topic.id)}`, $('#publish-json').value);
  notice(json.changed === false ? 'Unchanged: nothing published' : `Published at ${json.id}`, true);
}

async function loadStatus() {
  const { json } = await api('GET', `/api/v1/topics/${encodeURIComponent(state.topic.id)}/status`);
  const webhooks = json.webhooks ?? {};
  const rows = [
    ['storage', state.topic.storage ?? 'dedicated'], ['partitions', json.events.partitions], ['position', json.events.position],
    ['retention', humanDuration(state.topic.retention)],
    ['retained events', json.events.retained ?? 'not counted (shared storage)'],
    ['last event', ago(json.events.lastEventTime)],
    ['subscribers', Object.entries(json.subscribers ?? {}).map(([channel, n]) => `${n} ${channel}`).join(', ') || '–'],
    ['webhooks', `${webhooks.active ?? 0} active (${webhooks.failing ?? 0} failing), ${webhooks.disabled ?? 0} disabled`],
  ];
  if (state.topic.publisher?.pollingPeriod) rows.push(['polling', `every ${humanDuration(state.topic.publisher.pollingPeriod)}`]);
  const pages = state.topic.publisher?.pagination;
  if (pages) rows.push(['pages', `up to ${pages.maxPages}, next by ${pages.type === 'link-header' ? 'Link header' : pages.nextPointer}${pages.itemsPointer ? ', items at ' + pages.itemsPointer : ''}`]);
  const oauth2 = state.topic.publisher?.oauth2;
  if (oauth2) rows.push(['source auth', `OAuth 2.0 client ${oauth2.clientId} at ${oauth2.tokenUrl}`]);
  const publisher = state.topic.publisher;
  if (publisher?.type === 'kafka') {
    rows.push(['source', `Kafka topic ${publisher.topic} at ${publisher.bootstrapServers ?? 'the gateway\'s cluster'}${publisher.security ? ` (${publisher.security.protocol}${publisher.security.mechanism ? ' ' + publisher.security.mechanism : ''})` : ''}, new mirrors from the ${publisher.startFrom} record`]);
  }
  if (json.lastPoll) {
    rows.push([publisher?.type === 'kafka' ? 'mirror' : 'last poll', `${ago(json.lastPoll.at)}: ${json.lastPoll.outcome} in ${humanDuration(json.lastPoll.duration)}${json.lastPoll.detail ? ' — ' + json.lastPoll.detail : ''}`]);
  }
  $('#status').replaceChildren(...rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
}

const webhooksPath = () => `/api/v1/topics/${encodeURIComponent(state.topic.id)}/webhooks`;

async function loadWebhooks() {
  const { json } = await api('GET', webhooksPath());
  $('#webhooks').replaceChildren(...json.items.map((hook) => el('tr', { 'data-webhook': hook.id },
    el('td', {}, el('code', {}, hook.id)),
    el('td', {}, hook.url ?? `kafka: ${hook.kafka.topic} at ${hook.kafka.bootstrapServers ?? 'the gateway\'s cluster'}`, hook.oauth2 ? el('span', { class: 'muted', title: `OAuth 2.0 token from ${hook.oauth2.tokenUrl}` }, ' · OAuth 2.0') : ''),
    el('td', {}, hook.mode),
    el('td', { title: hook.disabledReason ?? '' }, hook.status), el('td', {}, hook.delivery?.delivered ?? 0),
    el('td', {}, hook.delivery?.failed ?? 0), el('td', {}, el('code', {}, hook.delivery?.cursor ?? '')),
    el('td', {},
      el('button', { type: 'button', onclick: guard(() => testWebhook(hook.id)) }, 'Test'), ' ',
      el('button', { type: 'button', onclick: guard(() => showAttempts(hook.id)) }, 'Attempts'), ' ',
      el('button', { type: 'button', onclick: guard(() => replay(hook.id)) }, 'Replay'), ' ',
      el('button', { type: 'button', onclick: guard(() => toggle(hook)) }, hook.status === 'active' ? 'Disable' : 'Enable'), ' ',
      el('button', { type: 'button', class: 'danger', onclick: guard(() => removeWebhook(hook.id)) }, 'Delete')))));
}

async function registerWebhook() {
  const body = { mode: $('#webhook-mode').value };
  if ($('#webhook-url').value) body.url = $('#webhook-url').value;
  if ($('#webhook-kafka').value.trim()) {
    try {
      body.kafka = JSON.parse($('#webhook-kafka').value);
    } catch {
      throw new Error('The Kafka target must be a JSON object such as {"bootstrapServers": "kafka:9092", "topic": "orders-out"}');
    }
  }
  if ($('#webhook-description').value) body.description = $('#webhook-description').value;
  if ($('#webhook-headers').value.trim()) {
    try {
      body.headers = JSON.parse($('#webhook-headers').value);
    } catch {
      throw new Error('Headers must be a JSON object such as {"X-Team": "quant"}');
    }
  }
  if ($('#webhook-oauth2').value.trim()) {
    try {
      body.oauth2 = JSON.parse($('#webhook-oauth2').value);
    } catch {
      throw new Error('OAuth 2.0 client credentials must be a JSON object such as {"tokenUrl": "https://…", "clientId": "…", "clientSecret": "…"}');
    }
  }
  const { json } = await api('POST', webhooksPath(), body);
  const secret = $('#webhook-secret');
  const copy = el('button', { type: 'button', id: 'copy-secret', onclick: guard(async () => {
    await copyText(json.secret);
    copy.textContent = 'Copied';
  }) }, 'Copy');
  secret.replaceChildren('Registered ', el('code', {}, json.id), '. Its signing secret, shown only now: ',
    el('code', { id: 'secret-value' }, json.secret), ' ', copy);
  secret.hidden = false;
  $('#webhook-form').reset();
  await loadWebhooks();
}

async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Pages served over plain HTTP from another host have no clipboard API.
  const area = el('textarea', { readonly: '' }, text);
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('The browser refused to copy; select the secret and copy it by hand');
}

async function testWebhook(id) {
  const { json } = await api('POST', `${webhooksPath()}/${id}/test`);
  notice(`Ping ${json.outcome}: ${json.statusCode ?? 'no answer'} in ${humanMillis(json.durationMs)}${json.error ? ' — ' + json.error : ''}`, json.outcome === 'delivered');
  await showAttempts(id);
}

async function showAttempts(id) {
  const { json } = await api('GET', `${webhooksPath()}/${id}/attempts?limit=50`);
  $('#attempts-of').textContent = id;
  $('#attempts').replaceChildren(...json.items.map((attempt) => el('tr', { 'data-outcome': attempt.outcome },
    el('td', {}, new Date(attempt.at).toLocaleString()), el('td', {}, attempt.eventId), el('td', {}, attempt.type), el('td', {}, attempt.attempt),
    el('td', { class: 'status-code' }, attempt.statusCode ?? '–'), el('td', {}, humanMillis(attempt.durationMs)), el('td', {}, attempt.outcome),
    el('td', {}, attempt.error ?? ''),
    el('td', { class: 'response' }, attempt.responseBody
      ? el('details', {}, el('summary', {}, `${attempt.responseBody.length >= 1024 ? 'first 1 KB' : attempt.responseBody.length + ' bytes'}`),
        el('pre', {}, attempt.responseBody))
      : ''))));
  $('#attempts-box').hidden = false;
}

async function replay(id) {
  const from = prompt('Replay after which cursor? (or an ISO-8601 time such as 2026-11-21T10:00:00Z)', '-1');
  if (from === null) return;
  const body = /^\d{4}-\d\d-\d\dT/.test(from) ? { since: from } : { from };
  await api('POST', `${webhooksPath()}/${id}/replay`, body);
  notice('Replay started', true);
  await loadWebhooks();
}

async function toggle(hook) {
  await api('PATCH', `${webhooksPath()}/${hook.id}`, { status: hook.status === 'active' ? 'disabled' : 'active' },
    { 'Content-Type': 'application/merge-patch+json' });
  await loadWebhooks();
}

async function removeWebhook(id) {
  if (!confirm(`Delete webhook ${id}?`)) return;
  await api('DELETE', `${webhooksPath()}/${id}`);
  await loadWebhooks();
}

async function createTopic() {
  const { json } = await api('POST', '/api/v1/topics', $('#create-json').value);
  $('#create-form').reset();
  await selectTopic(json.id);
  notice(`Created ${json.id}`, true);
}

async function saveTopic() {
  const edited = JSON.parse($('#edit-json').value);
  for (const field of ['createdAt', 'updatedAt', 'sharedPartition']) delete edited[field];
  const headers = { 'Content-Type': 'application/merge-patch+json' };
  if (state.etag) headers['If-Match'] = state.etag;
  await api('PATCH', `/api/v1/topics/${encodeURIComponent(state.topic.id)}`, edited, headers);
  await selectTopic(state.topic.id);
  showTab('edit');
  notice('Saved', true);
}

async function deleteTopic() {
  if (!confirm(`Delete topic ${state.topic.id} and all its events?`)) return;
  disconnect();
  const id = state.topic.id;
  await api('DELETE', `/api/v1/topics/${encodeURIComponent(id)}`);
  state.topic = null;
  $('#topic-panel').hidden = true;
  await loadTopics();
  notice(`Deleted ${id}`, true);
}

document.addEventListener('DOMContentLoaded', () => {
  $('#token').value = state.token;
  useToken(state.token);
  $('#token-form').addEventListener('submit', guard(async () => {
    useToken($('#token').value);
    await loadTopics();
  }));
  $('#refresh-topics').addEventListener('click', guard(loadTopics));
  $('#create-form').addEventListener('submit', guard(createTopic));
  $('#live-form').addEventListener('submit', guard(connect));
  $('#live-disconnect').addEventListener('click', disconnect);
  $('#live-from').addEventListener('change', () => {
    const from = $('#live-from').value;
    $('#live-from-value').hidden = from !== 'cursor' && from !== 'time';
    $('#live-from-value').placeholder = from === 'time' ? '2026-11-21T10:00:00Z' : 'a cursor, such as mwumbp5u:41';
  });
  $('#publish-form').addEventListener('submit', guard(publish));
  $('#status-refresh').addEventListener('click', guard(loadStatus));
  $('#webhook-form').addEventListener('submit', guard(registerWebhook));
  $('#edit-form').addEventListener('submit', guard(saveTopic));
  $('#delete-topic').addEventListener('click', guard(deleteTopic));
  for (const button of document.querySelectorAll('nav button')) button.addEventListener('click', () => showTab(button.dataset.tab));
  guard(loadTopics)();
});
