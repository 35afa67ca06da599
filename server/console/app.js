// The lqs console's script: reads lqsd's console API (/console/api/...) and
// acts through lqsd's own SQS JSON API, sending X-Lqs-Console: 1 so that the
// session cookie stands in for a signature when lqsd has --auth-file.
'use strict';
(function () {
  const REFRESH_MS = 2000;
  const HISTORY_MS = 10000;
  const state = {queues: [], selected: null, nowMs: Date.now(), tasks: {}};
  const $ = (id) => document.getElementById(id);

  // A DOM element with attributes and children (strings become text: no HTML
  // is ever parsed from data).
  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'onclick') n.addEventListener('click', v);
      else if (k === 'className') n.className = v;
      else n.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      n.appendChild(typeof c === 'string' || typeof c === 'number'
                      ? document.createTextNode(String(c)) : c);
    }
    return n;
  }

  async function api(path) {
    const r = await fetch('/console/api/' + path,
                          {headers: {'X-Lqs-Console': '1'}, credentials: 'same-origin'});
    if (r.status === 401) {
      window.location.href = '/console/login';
      throw new Error('login required');
    }
    const body = await r.json();
    if (!r.ok) throw new Error(body.message || r.statusText);
    return body;
  }

  async function sqs(action, params) {
    const r = await fetch('/', {
      method: 'POST',
      credentials: 'same-origin',
      headers: {'Content-Type': 'application/x-amz-json-1.0',
                'X-Amz-Target': 'AmazonSQS.' + action, 'X-Lqs-Console': '1'},
      body: JSON.stringify(params),
    });
    const text = await r.text();
    const body = text ? JSON.parse(text) : {};
    if (!r.ok) {
      const type = String(body.__type || 'Error').split('#').pop();
      throw new Error(type + ': ' + (body.message || body.Message || r.statusText));
    }
    return body;
  }

  function age(seconds) {
    if (seconds < 60) return seconds + ' s';
    if (seconds < 3600) return Math.floor(seconds / 60) + ' min ' + (seconds % 60) + ' s';
    const h = Math.floor(seconds / 3600);
    return h + ' h ' + Math.floor((seconds % 3600) / 60) + ' min';
  }

  function say(text, ok) {
    const p = $('action-result');
    p.textContent = text;
    p.className = ok ? 'ok' : 'error';
  }

  function queueByName(name) {
    return state.queues.find((q) => q.name === name);
  }

  // Keeps one row per item in `body`, in the items' order: a row is built once
  // (`build`) and then only its cells change (`update`), so that a click on it
  // is never lost to a refresh.
  function syncRows(body, items, keyAttr, keyOf, build, update) {
    const old = new Map();
    for (const row of Array.from(body.children)) old.set(row.getAttribute(keyAttr), row);
    items.forEach((item, i) => {
      let row = old.get(keyOf(item));
      old.delete(keyOf(item));
      if (!row) {
        row = build(item);
        row.setAttribute(keyAttr, keyOf(item));
      }
      update(row, item);
      if (body.children[i] !== row) body.insertBefore(row, body.children[i] || null);
    });
    for (const row of old.values()) row.remove();
  }

  function setCell(row, field, text) {
    const cell = row.querySelector('[data-field="' + field + '"]');
    if (cell.textContent !== String(text)) cell.textContent = String(text);
  }

  function renderQueues() {
    syncRows($('queues').querySelector('tbody'), state.queues, 'data-queue', (q) => q.name,
      (q) => el('tr', {},
        el('td', {}, el('button', {className: 'link', type: 'button',
                                   onclick: () => select(q.name)}, q.name)),
        el('td', {className: 'num', 'data-field': 'visible'}),
        el('td', {className: 'num', 'data-field': 'in_flight'}),
        el('td', {className: 'num', 'data-field': 'delayed'}),
        el('td', {className: 'num', 'data-field': 'oldest'}),
        el('td', {'data-field': 'dlq'})),
      (row, q) => {
        row.className = q.name === state.selected ? 'selected' : '';
        setCell(row, 'visible', q.visible);
        setCell(row, 'in_flight', q.in_flight);
        setCell(row, 'delayed', q.delayed);
        setCell(row, 'oldest', age(q.oldest_age_seconds));
        setCell(row, 'dlq', q.dead_letter_target
          ? q.dead_letter_target + ' (after ' + q.max_receive_count + ' receives)' : '');
      });
    $('no-queues').hidden = state.queues.length > 0;
  }

  function taskText(task) {
    if (!task) return '';
    const moved = task.ApproximateNumberOfMessagesMoved || 0;
    const total = task.ApproximateNumberOfMessagesToMove;
    return task.Status + ': ' + moved + (total !== undefined ? ' of ' + total : '') + ' moved' +
      (task.FailureReason ? ' (' + task.FailureReason + ')' : '');
  }

  function renderDlqs() {
    const dlqs = state.queues.filter((q) => q.dead_letter_sources.length > 0);
    syncRows($('dlqs').querySelector('tbody'), dlqs, 'data-dlq', (q) => q.name,
      (q) => el('tr', {},
        el('td', {}, el('button', {className: 'link', type: 'button',
                                   onclick: () => select(q.name)}, q.name)),
        el('td', {className: 'num', 'data-field': 'depth'}),
        el('td', {'data-field': 'sources'}),
        el('td', {}, el('button', {type: 'button', className: 'redrive',
                                   onclick: () => redrive(queueByName(q.name))},
                        'Redrive to sources')),
        el('td', {'data-field': 'task'})),
      (row, q) => {
        setCell(row, 'depth', q.visible + q.in_flight + q.delayed);
        setCell(row, 'sources', q.dead_letter_sources.join(', '));
        setCell(row, 'task', taskText(state.tasks[q.name]));
      });
    $('no-dlqs').hidden = dlqs.length > 0;
    return dlqs;
  }

  async function refreshTasks(dlqs) {
    for (const q of dlqs) {
      try {
        const r = await sqs('ListMessageMoveTasks', {SourceArn: q.arn, MaxResults: 1});
        state.tasks[q.name] = (r.Results || [])[0];
      } catch (e) {
        state.tasks[q.name] = {Status: 'unknown', FailureReason: e.message};
      }
    }
  }

  function renderDetail() {
    const q = queueByName(state.selected);
    $('detail').hidden = !q;
    if (!q) return;
    $('detail-name').textContent = q.name;
    $('detail-url').textContent = q.url + '  ·  ' + q.arn;
  }

  async function refresh() {
    try {
      const data = await api('queues');
      state.queues = data.queues;
      state.nowMs = data.now_ms;
      $('logout-form').hidden = !data.auth;
      const dlqs = renderDlqs();
      renderQueues();
      renderDetail();
      await refreshTasks(dlqs);
      renderDlqs();
      $('status').textContent = state.queues.length + ' queues · updated ' +
        new Date(data.now_ms).toLocaleTimeString();
    } catch (e) {
      $('status').textContent = 'refresh failed: ' + e.message;
    }
  }

  async function loadHistory() {
    if (!state.selected) return;
    try {
      const h = await api('history?queue=' + encodeURIComponent(state.selected));
      LqsCharts.draw($('chart-depth'), h.samples, [
        {index: 1, label: 'visible', color: '#2f6fde'},
        {index: 2, label: 'in flight', color: '#d69e2e'},
        {index: 3, label: 'delayed', color: '#8a94a6'},
      ], state.nowMs);
      LqsCharts.draw($('chart-age'), h.samples,
                     [{index: 4, label: 'oldest age (s)', color: '#c23b32'}], state.nowMs);
    } catch (e) {
      say('history: ' + e.message, false);
    }
  }

  function stateOf(m) {
    const a = m.Attributes || {};
    if (a.IsDelayed === 'true') return 'delayed';
    if (a.IsVisible === 'false') return 'in_flight';
    return 'visible';
  }

  function attributeList(m) {
    const items = [];
    for (const [k, v] of Object.entries(m.Attributes || {})) {
      if (k === 'IsVisible' || k === 'IsDelayed' || k === 'SentTimestamp' ||
          k === 'ApproximateReceiveCount') continue;
      items.push(k + ' = ' + v);
    }
    for (const [k, v] of Object.entries(m.MessageAttributes || {})) {
      items.push(k + ' (' + v.DataType + ') = ' + (v.StringValue !== undefined
        ? v.StringValue : '[binary]'));
    }
    return el('div', {className: 'attrs'}, ...items.map((t) => el('div', {}, t)));
  }

  async function peek(id) {
    if (!state.selected) return;
    let path = 'messages?queue=' + encodeURIComponent(state.selected);
    if (id) path += '&id=' + encodeURIComponent(id);
    const body = $('messages').querySelector('tbody');
    try {
      const r = await api(path);
      body.replaceChildren();
      for (const m of r.Messages) {
        const a = m.Attributes || {};
        const s = stateOf(m);
        const sent = a.SentTimestamp ? new Date(Number(a.SentTimestamp)).toLocaleString() : '';
        body.appendChild(el('tr', {'data-message-id': m.MessageId},
          el('td', {}, el('code', {}, m.MessageId)),
          el('td', {className: 'state-' + s}, s.replace('_', ' ')),
          el('td', {}, sent),
          el('td', {className: 'num'}, a.ApproximateReceiveCount || '0'),
          el('td', {}, el('pre', {className: 'body'}, m.Body)),
          el('td', {}, attributeList(m))));
      }
      $('peek-summary').textContent = id
        ? (r.Total ? 'found' : 'no message with id ' + id)
        : r.Total + ' messages' + (r.Truncated ? ' (first ' + r.Messages.length + ' shown)' : '');
    } catch (e) {
      $('peek-summary').textContent = 'peek failed: ' + e.message;
    }
  }

  function select(name) {
    state.selected = name;
    $('purge-confirm').hidden = true;
    $('search-id').value = '';
    say('', true);
    renderQueues();
    renderDetail();
    loadHistory();
    peek('');
  }

  async function redrive(q) {
    try {
      const r = await sqs('StartMessageMoveTask', {SourceArn: q.arn});
      say('Redrive of ' + q.name + ' started (task ' + r.TaskHandle.slice(0, 12) + '…)', true);
    } catch (e) {
      say('Redrive of ' + q.name + ' failed: ' + e.message, false);
    }
    refresh();
  }

  $('purge-button').addEventListener('click', () => {
    const q = queueByName(state.selected);
    if (!q) return;
    $('purge-question').textContent = 'Delete all ' + (q.visible + q.in_flight + q.delayed) +
      ' messages of ' + q.name + '?';
    $('purge-confirm').hidden = false;
  });
  $('purge-no').addEventListener('click', () => { $('purge-confirm').hidden = true; });
  $('purge-yes').addEventListener('click', async () => {
    const q = queueByName(state.selected);
    $('purge-confirm').hidden = true;
    if (!q) return;
    try {
      await sqs('PurgeQueue', {QueueUrl: q.url});
      say('Purged ' + q.name + '.', true);
    } catch (e) {
      say('Purge failed: ' + e.message, false);
    }
    await refresh();
    peek('');
  });
  $('send-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const q = queueByName(state.selected);
    if (!q) return;
    const params = {QueueUrl: q.url, MessageBody: $('send-body').value};
    if (q.fifo) {
      params.MessageGroupId = 'console';
      params.MessageDeduplicationId = 'console-' + Date.now() + '-' + Math.random();
    }
    try {
      const r = await sqs('SendMessage', params);
      say('Sent message ' + r.MessageId + ' to ' + q.name + '.', true);
    } catch (e) {
      say('Send failed: ' + e.message, false);
    }
    await refresh();
    peek('');
  });
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    peek($('search-id').value.trim());
  });
  $('peek-button').addEventListener('click', () => {
    $('search-id').value = '';
    peek('');
  });

  refresh();
  setInterval(refresh, REFRESH_MS);
  setInterval(loadHistory, HISTORY_MS);
})();
