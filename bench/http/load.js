#!/usr/bin/env node
// Load generator for SQS-compatible HTTP endpoints (lqsd, fauxqs) over
// keep-alive loopback HTTP (raw sockets, one request in flight per
// connection), speaking the AWS JSON 1.0 protocol directly:
// POST / with X-Amz-Target: AmazonSQS.<Action>. No SDK, no signing, so the
// client stays cheap.
//
//   node load.js --endpoint http://127.0.0.1:PORT --pid SERVER_PID --name lqsd \
//       [--n1 10000] [--n10 20000] [--nmixed 20000] [--concurrency 4] [--body 100]
//
// Prints one JSON object (per-mode results) on stdout.
'use strict';

const fs = require('fs');
const os = require('os');

function parseArgs(argv) {
  const a = {n1: 10000, n10: 20000, nmixed: 20000, nlife: 20000, concurrency: 4, body: 100, modes: ''};
  for (let i = 2; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '');
    const v = argv[i + 1];
    a[k] = /^\d+$/.test(v) ? Number(v) : v;
  }
  if (!a.endpoint || !a.pid) throw new Error('need --endpoint and --pid');
  return a;
}

const args = parseArgs(process.argv);
const url = new URL(args.endpoint);
const CLK_TCK = 100;  // sysconf(_SC_CLK_TCK) on Linux

function serverCpuSeconds(pid) {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  // fields after ")": index 0 is field 3 (state); utime=14, stime=15
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

let requests = 0;

// Minimal keep-alive HTTP/1.1 client on raw sockets: one request in flight
// per connection, responses framed by Content-Length. Node's http module costs
// more CPU per request than lqsd does, which on a 2-core box made the client
// the bottleneck; this one costs a fraction of that.
const net = require('net');
const free = [];
const waiters = [];
let nconns = 0;
const MAX_CONNS = 64;

function newConn() {
  const sock = net.connect({host: url.hostname, port: Number(url.port)});
  sock.setNoDelay(true);
  const c = {sock, buf: Buffer.alloc(0), cb: null};
  sock.on('data', (d) => {
    c.buf = c.buf.length ? Buffer.concat([c.buf, d]) : d;
    tryParse(c);
  });
  sock.on('error', (e) => { if (c.cb) { const cb = c.cb; c.cb = null; cb(e); } });
  sock.on('close', () => { if (c.cb) { const cb = c.cb; c.cb = null; cb(new Error('connection closed')); } });
  nconns++;
  return c;
}

function tryParse(c) {
  const he = c.buf.indexOf('\r\n\r\n');
  if (he < 0) return;
  const head = c.buf.toString('latin1', 0, he);
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!m) { const cb = c.cb; c.cb = null; cb(new Error('response without Content-Length: ' + head)); return; }
  const len = Number(m[1]);
  if (c.buf.length < he + 4 + len) return;
  const status = Number(head.slice(9, 12));
  const body = c.buf.toString('utf8', he + 4, he + 4 + len);
  c.buf = c.buf.subarray(he + 4 + len);
  const cb = c.cb; c.cb = null;
  release(c);
  cb(null, status, body);
}

function acquire() {
  if (free.length) return Promise.resolve(free.pop());
  if (nconns < MAX_CONNS) return Promise.resolve(newConn());
  return new Promise((r) => waiters.push(r));
}
function release(c) {
  if (waiters.length) waiters.shift()(c); else free.push(c);
}
function closeAll() { for (const c of free) c.sock.destroy(); }

const hostHeader = `${url.hostname}:${url.port}`;
async function call(action, payload) {
  const body = Buffer.from(JSON.stringify(payload));
  requests++;
  const c = await acquire();
  return new Promise((resolve, reject) => {
    c.cb = (err, status, text) => {
      if (err) return reject(err);
      if (status !== 200) return reject(new Error(`${action}: HTTP ${status}: ${text.slice(0, 300)}`));
      resolve(text.length ? JSON.parse(text) : {});
    };
    const head = `POST / HTTP/1.1\r\nHost: ${hostHeader}\r\n` +
      `Content-Type: application/x-amz-json-1.0\r\nX-Amz-Target: AmazonSQS.${action}\r\n` +
      `Content-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
    c.sock.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

// DeleteMessageBatch of the received `msgs` (entry ids 0..n-1); throws on a failed entry.
async function deleteBatch(q, msgs) {
  const entries = msgs.map((mm, j) => ({Id: String(j), ReceiptHandle: mm.ReceiptHandle}));
  const d = await call('DeleteMessageBatch', {QueueUrl: q, Entries: entries});
  if (d.Failed && d.Failed.length) throw new Error('delete failed: ' + JSON.stringify(d.Failed[0]));
}

const filler = 'x'.repeat(Math.max(0, args.body - 20));
function makeBody(i) {
  // Send time first so the mixed mode can measure end-to-end latency.
  return `${Date.now()}|${i}|${filler}`;
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)];
}
function summarize(lat) {
  const s = Float64Array.from(lat).sort();
  const r = (x) => (x === null ? null : Math.round(x * 1000) / 1000);
  return {count: s.length, p50_ms: r(pct(s, 50)), p99_ms: r(pct(s, 99)), max_ms: r(s[s.length - 1])};
}

let qseq = 0;
async function newQueue(mode) {
  const name = `bench-${args.name || 'x'}-${mode}-${process.pid}-${qseq++}`;
  const r = await call('CreateQueue', {QueueName: name});
  return r.QueueUrl;
}

async function prefill(q, n) {
  let next = 0;
  async function worker() {
    while (next < n) {
      const base = next;
      const k = Math.min(10, n - base);
      next += k;
      const entries = [];
      for (let j = 0; j < k; j++) entries.push({Id: String(j), MessageBody: makeBody(base + j)});
      const r = await call('SendMessageBatch', {QueueUrl: q, Entries: entries});
      if (r.Failed && r.Failed.length) throw new Error('prefill failed: ' + JSON.stringify(r.Failed[0]));
    }
  }
  await Promise.all(Array.from({length: args.concurrency}, worker));
}

// Runs fn() under measurement: wall time, server CPU, client CPU, request count.
async function measured(fn) {
  const cpu0 = serverCpuSeconds(args.pid);
  const ccpu0 = process.cpuUsage();
  const req0 = requests;
  const t0 = process.hrtime.bigint();
  const extra = await fn();
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu1 = serverCpuSeconds(args.pid);
  const ccpu = process.cpuUsage(ccpu0);
  const reqs = requests - req0;
  return {
    seconds: Math.round(secs * 1000) / 1000,
    requests: reqs,
    server_cpu_s: Math.round((cpu1 - cpu0) * 1000) / 1000,
    server_cpu_us_per_request: Math.round(((cpu1 - cpu0) * 1e6) / reqs),
    client_cpu_s: Math.round(((ccpu.user + ccpu.system) / 1e6) * 1000) / 1000,
    ...extra,
  };
}

function now() { return Number(process.hrtime.bigint()) / 1e6; }

async function modeSend(batch, n) {
  const q = await newQueue(`send${batch}`);
  const lat = [];
  let next = 0;
  async function worker() {
    while (next < n) {
      const base = next;
      const k = Math.min(batch, n - base);
      next += k;
      const t = now();
      if (batch === 1) {
        await call('SendMessage', {QueueUrl: q, MessageBody: makeBody(base)});
      } else {
        const entries = [];
        for (let j = 0; j < k; j++) entries.push({Id: String(j), MessageBody: makeBody(base + j)});
        const r = await call('SendMessageBatch', {QueueUrl: q, Entries: entries});
        if (r.Failed && r.Failed.length) throw new Error('send failed: ' + JSON.stringify(r.Failed[0]));
      }
      lat.push(now() - t);
    }
  }
  const m = await measured(async () => {
    await Promise.all(Array.from({length: args.concurrency}, worker));
    return {};
  });
  return {messages: n, msgs_per_s: Math.round(n / m.seconds), latency: summarize(lat), ...m,
          latency_unit: `one ${batch === 1 ? 'SendMessage' : 'SendMessageBatch'} call`};
}

async function modeRecv(batch, n) {
  const q = await newQueue(`recv${batch}`);
  await prefill(q, n);
  const lat = [];
  let done = 0;
  let empties = 0;
  async function worker() {
    while (done < n) {
      const t = now();
      const r = await call('ReceiveMessage', {QueueUrl: q, MaxNumberOfMessages: batch, WaitTimeSeconds: 0});
      const msgs = r.Messages || [];
      if (!msgs.length) {
        if (++empties > 1000) throw new Error('queue ran dry before all messages were received');
        continue;
      }
      if (batch === 1) {
        await call('DeleteMessage', {QueueUrl: q, ReceiptHandle: msgs[0].ReceiptHandle});
      } else {
        await deleteBatch(q, msgs);
      }
      lat.push(now() - t);
      done += msgs.length;
    }
  }
  const m = await measured(async () => {
    await Promise.all(Array.from({length: args.concurrency}, worker));
    return {};
  });
  return {messages: done, msgs_per_s: Math.round(done / m.seconds), latency: summarize(lat),
          empty_receives: empties, ...m,
          latency_unit: `ReceiveMessage(max ${batch}) + ${batch === 1 ? 'DeleteMessage' : 'DeleteMessageBatch'} pair`};
}

// One producer (SendMessageBatch of 10, one call in flight) and one consumer
// (ReceiveMessage max 10 with a 1 s long poll + DeleteMessageBatch, one call in
// flight) on the same queue at the same time.
async function modeMixed(n) {
  const q = await newQueue('mixed');
  const sendLat = [];
  const recvLat = [];
  const e2e = [];
  let consumed = 0;
  async function producer() {
    for (let base = 0; base < n; base += 10) {
      const k = Math.min(10, n - base);
      const entries = [];
      for (let j = 0; j < k; j++) entries.push({Id: String(j), MessageBody: makeBody(base + j)});
      const t = now();
      const r = await call('SendMessageBatch', {QueueUrl: q, Entries: entries});
      if (r.Failed && r.Failed.length) throw new Error('send failed: ' + JSON.stringify(r.Failed[0]));
      sendLat.push(now() - t);
    }
  }
  async function consumer() {
    while (consumed < n) {
      const t = now();
      const r = await call('ReceiveMessage', {QueueUrl: q, MaxNumberOfMessages: 10, WaitTimeSeconds: 1});
      const msgs = r.Messages || [];
      if (!msgs.length) continue;
      const wall = Date.now();
      for (const mm of msgs) e2e.push(wall - Number(mm.Body.slice(0, mm.Body.indexOf('|'))));
      await deleteBatch(q, msgs);
      recvLat.push(now() - t);
      consumed += msgs.length;
    }
  }
  const m = await measured(async () => {
    await Promise.all([producer(), consumer()]);
    return {};
  });
  return {messages: consumed, msgs_per_s: Math.round(consumed / m.seconds),
          latency: summarize(recvLat), latency_unit: 'consumer ReceiveMessage(max 10, wait 1 s) + DeleteMessageBatch pair',
          send_call_latency: summarize(sendLat),
          // Dominated by the backlog when the producer outruns the consumer.
          end_to_end_latency: summarize(e2e), ...m};
}

// The library's "lifecycle" (bench/lqs_bench `life b10 100B t1 process`)
// over HTTP: one connection, a standing backlog of 1,000 messages; each round
// sends a batch of 10 (SendMessageBatch), then receives (ReceiveMessage max
// 10, no wait, repeated until 10 arrived) and deletes them
// (DeleteMessageBatch). msgs/s counts lifecycles (messages sent, received and
// deleted); latency is per round, as in lqs_bench.
async function modeLife(n) {
  const q = await newQueue('life');
  await prefill(q, 1000);
  let seq = 0;
  async function round() {
    const entries = [];
    for (let j = 0; j < 10; j++) entries.push({Id: String(j), MessageBody: makeBody(seq++)});
    const s = await call('SendMessageBatch', {QueueUrl: q, Entries: entries});
    if (s.Failed && s.Failed.length) throw new Error('send failed: ' + JSON.stringify(s.Failed[0]));
    let need = 10;
    let empties = 0;
    while (need > 0) {
      const r = await call('ReceiveMessage', {QueueUrl: q, MaxNumberOfMessages: need, WaitTimeSeconds: 0});
      const msgs = r.Messages || [];
      if (!msgs.length) {
        if (++empties > 1000) throw new Error('life: nothing receivable');
        continue;
      }
      await deleteBatch(q, msgs);
      need -= msgs.length;
    }
  }
  for (let i = 0; i < 100; i++) await round();  // warm-up (lqs_bench warms too)
  const lat = [];
  const rounds = Math.ceil(n / 10);
  const m = await measured(async () => {
    for (let i = 0; i < rounds; i++) {
      const t = now();
      await round();
      lat.push(now() - t);
    }
    return {};
  });
  return {messages: rounds * 10, msgs_per_s: Math.round((rounds * 10) / m.seconds),
          latency: summarize(lat), ...m,
          latency_unit: 'one round: SendMessageBatch(10) + ReceiveMessage(max 10) + DeleteMessageBatch, 1 connection'};
}

async function main() {
  const all = {
    send1: () => modeSend(1, args.n1),
    send10: () => modeSend(10, args.n10),
    recv1: () => modeRecv(1, args.n1),
    recv10: () => modeRecv(10, args.n10),
    mixed: () => modeMixed(args.nmixed),
    life: () => modeLife(args.nlife),
  };
  const modes = args.modes ? String(args.modes).split(',') : Object.keys(all);
  // Warm-up: connections, JIT, queue creation path.
  const wq = await newQueue('warm');
  for (let i = 0; i < 200; i++) await call('SendMessage', {QueueUrl: wq, MessageBody: makeBody(i)});
  const out = {name: args.name, endpoint: args.endpoint, concurrency: args.concurrency,
               body_bytes: args.body, modes: {}};
  for (const mode of modes) {
    out.modes[mode] = await all[mode]();
    process.stderr.write(`${args.name} ${mode}: ${out.modes[mode].msgs_per_s} msg/s, ` +
      `p50 ${out.modes[mode].latency.p50_ms} ms, p99 ${out.modes[mode].latency.p99_ms} ms, ` +
      `${out.modes[mode].server_cpu_us_per_request} us server CPU/request\n`);
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  closeAll();
}

main().catch((e) => { console.error(e); process.exit(1); });
