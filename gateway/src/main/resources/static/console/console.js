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
  list.replaceChildren(...json.items.map((topic) => el('li', {},
    el('button', { type: 'button', 'data-topic': topic.id, 'aria-current': String(topic.id === state.topic?.id), onclick: guard(() => selectTopic(topic.id)) },
      `${topic.id} `, el('span', { class: 'muted' }, `${topic.payloadType} · ${topic.publisher.type}`)))));
  if (json.total > json.items.length) list.append(el('li', { class: 'muted' }, `… ${json.total - json.items.length} more`));
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
  await loadTopics();
  showTab('live');
}

function showTab(name) {
  for (const button of document.querySelectorAll('nav button')) button.setAttribute('aria-pressed', String(button.dataset.tab === name));
  for (const tab of document.querySelectorAll('.tab')) tab.hidden = tab.id !== `tab-${name}`;
  if (name === 'status') guard(loadStatus)();
  if (name === 'webhooks') guard(loadWebhooks)();
}

// Live view: the real stream endpoint through EventSource, which reconnects by itself and
// resumes with Last-Event-ID, so nothing is missed across a cut connection.
function connect() {
  disconnect();
  const mode = $('#live-mode').value;
  state.document = undefined;
  const source = new EventSource(`/api/v1/stream/${encodeURIComponent(state.topic.id)}?mode=${encodeURIComponent(mode)}`);
  state.source = source;
  setLiveState('connecting', '');
  source.onopen = () => setLiveState('open', 'open');
  source.onerror = () => setLiveState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting…',
    source.readyState === EventSource.CLOSED ? 'closed' : 'retrying');
  for (const type of ['snapshot', 'patch', 'event', 'problem']) {
    source.addEventListener(type, (message) => frame(type, message));
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
  const item = el('li', { 'data-id': message.lastEventId, 'data-type': type },
    el('span', { class: 'type' }, type), ` id=${message.lastEventId || '–'} `,
    el('span', { class: 'muted' }, new Date().toLocaleTimeString()), ' ', text.length > 400 ? text.slice(0, 400) + '…' : text);
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
  const rows = [
    ['storage', state.topic.storage ?? 'dedicated'], ['partitions', json.events.partitions], ['position', json.events.position],
    ['retained events', json.events.retained ?? 'not counted (shared storage)'],
    ['last event', json.events.lastEventTime ?? '–'], ['subscribers', JSON.stringify(json.subscribers)],
    ['webhooks', JSON.stringify(json.webhooks)],
  ];
  if (json.lastPoll) rows.push(['last poll', `${json.lastPoll.at} ${json.lastPoll.outcome} (${json.lastPoll.duration})${json.lastPoll.detail ? ' ' + json.lastPoll.detail : ''}`]);
  $('#status').replaceChildren(...rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
}

const webhooksPath = () => `/api/v1/topics/${encodeURIComponent(state.topic.id)}/webhooks`;

async function loadWebhooks() {
  const { json } = await api('GET', webhooksPath());
  $('#webhooks').replaceChildren(...json.items.map((hook) => el('tr', { 'data-webhook': hook.id },
    el('td', {}, el('code', {}, hook.id)), el('td', {}, hook.url), el('td', {}, hook.mode),
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
  const body = { url: $('#webhook-url').value, mode: $('#webhook-mode').value };
  if ($('#webhook-description').value) body.description = $('#webhook-description').value;
  if ($('#webhook-headers').value.trim()) {
    try {
      body.headers = JSON.parse($('#webhook-headers').value);
    } catch {
      throw new Error('Headers must be a JSON object such as {"X-Team": "quant"}');
    }
  }
  const { json } = await api('POST', webhooksPath(), body);
  const secret = $('#webhook-secret');
  secret.replaceChildren('Registered ', el('code', {}, json.id), '. Its signing secret, shown only now: ', el('code', {}, json.secret));
  secret.hidden = false;
  await loadWebhooks();
}

async function testWebhook(id) {
  const { json } = await api('POST', `${webhooksPath()}/${id}/test`);
  notice(`Ping ${json.outcome}: ${json.statusCode ?? 'no answer'} in ${json.durationMs} ms${json.error ? ' — ' + json.error : ''}`, json.outcome === 'delivered');
  await showAttempts(id);
}

async function showAttempts(id) {
  const { json } = await api('GET', `${webhooksPath()}/${id}/attempts?limit=50`);
  $('#attempts-of').textContent = id;
  $('#attempts').replaceChildren(...json.items.map((attempt) => el('tr', {},
    el('td', {}, attempt.at), el('td', {}, attempt.eventId), el('td', {}, attempt.type), el('td', {}, attempt.attempt),
    el('td', {}, attempt.statusCode ?? '–'), el('td', {}, attempt.durationMs), el('td', {}, attempt.outcome), el('td', {}, attempt.error ?? ''))));
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
  await selectTopic(json.id);
  notice(`Created ${json.id}`, true);
}

async function saveTopic() {
  const edited = JSON.parse($('#edit-json').value);
  for (const field of ['createdAt', 'updatedAt']) delete edited[field];
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
  $('#publish-form').addEventListener('submit', guard(publish));
  $('#status-refresh').addEventListener('click', guard(loadStatus));
  $('#webhook-form').addEventListener('submit', guard(registerWebhook));
  $('#edit-form').addEventListener('submit', guard(saveTopic));
  $('#delete-topic').addEventListener('click', guard(deleteTopic));
  for (const button of document.querySelectorAll('nav button')) button.addEventListener('click', () => showTab(button.dataset.tab));
  guard(loadTopics)();
});
