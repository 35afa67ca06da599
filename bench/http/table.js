#!/usr/bin/env node
// Combines the two load.js outputs into results.json and prints a markdown table.
//   node table.js lqsd.json fauxqs.json results.json "uptime before" "uptime after" fauxqsVersion nproc
'use strict';
const fs = require('fs');
const [lf, ff, out, upBefore, upAfter, fversion, nproc, libFile] = process.argv.slice(2);
const l = JSON.parse(fs.readFileSync(lf, 'utf8'));
const f = JSON.parse(fs.readFileSync(ff, 'utf8'));

const labels = {
  send1: 'send, 1 per call (SendMessage)',
  send10: 'send, 10 per call (SendMessageBatch)',
  recv1: 'receive+delete, 1 per call',
  recv10: 'receive+delete, 10 per call (batch delete)',
  mixed: '1 producer + 1 consumer (batches of 10)',
  life: 'lifecycle: send 10, receive 10, delete 10 (1 connection)',
};
const target = 3;
const rows = [];
const summary = {};
for (const mode of Object.keys(l.modes)) {
  const a = l.modes[mode];
  const b = f.modes[mode];
  if (!b) continue;
  const ratio = a.msgs_per_s / b.msgs_per_s;
  summary[mode] = {lqsd_msgs_per_s: a.msgs_per_s, fauxqs_msgs_per_s: b.msgs_per_s,
                   ratio: Math.round(ratio * 100) / 100, meets_3x: ratio >= target};
  rows.push(`| ${labels[mode] || mode} | ${a.messages} | ${a.msgs_per_s} | ${b.msgs_per_s} | ` +
    `**${ratio.toFixed(2)}x** ${ratio >= target ? 'yes' : 'NO'} | ` +
    `${a.latency.p50_ms} / ${a.latency.p99_ms} | ${b.latency.p50_ms} / ${b.latency.p99_ms} | ` +
    `${a.server_cpu_us_per_request} | ${b.server_cpu_us_per_request} |`);
}
// The library's own figure for the lifecycle (bench/lqs_bench, same run).
let library = null;
if (libFile) {
  const doc = JSON.parse(fs.readFileSync(libFile, 'utf8'));
  const row = (doc.results || []).find((r) => r.workload === 'life b10 100B t1 process');
  if (row && l.modes.life) {
    const ratio = l.modes.life.msgs_per_s / row.msgs_per_sec;
    library = {workload: row.workload, library_msgs_per_s: Math.round(row.msgs_per_sec),
               library_messages: row.messages, lqsd_http_msgs_per_s: l.modes.life.msgs_per_s,
               ratio: Math.round(ratio * 100) / 100, meets_50pct: ratio >= 0.5,
               compared: 'lqs_bench life b10 100B t1 process (library, in process) vs load.js ' +
                         'life (same workload through lqsd over HTTP, 1 connection)'};
  }
}
const result = {
  generated: new Date().toISOString(),
  machine: {nproc: Number(nproc), uptime_before: upBefore.trim(), uptime_after: upAfter.trim(),
            node: process.version},
  client: l.client || 'node',
  fauxqs_version: fversion,
  target: `lqsd >= ${target}x fauxqs msgs/s in every mode`,
  summary,
  library_vs_http: library,
  lqsd: l,
  fauxqs: f,
};
fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');

console.log(`load before: ${upBefore.trim()}`);
console.log(`load after:  ${upAfter.trim()}`);
// load.js writes no "client" key; lqs_http_load (C++) writes "client": "c++".
const clientName = (d) => (d.client ? `${d.client} (lqs_http_load)` : `Node ${process.version} (load.js)`);
console.log(`client: ${clientName(l)}${f.client !== l.client ? ` / fauxqs: ${clientName(f)}` : ''}, ` +
  `raw keep-alive sockets, ${l.concurrency} connections with one request in flight each ` +
  `(mixed: 1 producer + 1 consumer), ${l.body_bytes}-byte bodies; fauxqs ${fversion}\n`);
console.log('| mode | messages | lqsd msg/s | fauxqs msg/s | lqsd/fauxqs (>= 3x?) | ' +
  'lqsd p50 / p99 ms per call | fauxqs p50 / p99 ms per call | lqsd CPU us/req | fauxqs CPU us/req |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
if (library) {
  console.log(`\nlifecycle, library vs HTTP: lqs_bench ${library.library_msgs_per_s} msg/s, ` +
    `lqsd over HTTP ${library.lqsd_http_msgs_per_s} msg/s: **${library.ratio.toFixed(2)}** ` +
    `(target >= 0.50: ${library.meets_50pct ? 'yes' : 'NO'})`);
}
console.log(`\nresults: ${out}`);
