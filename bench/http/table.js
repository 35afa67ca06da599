#!/usr/bin/env node
// Combines the load.js outputs into results.json and prints a markdown table.
//   node table.js lqsd.json[,...] fauxqs.json[,...] results.json "uptime before" "uptime after" \
//     fauxqsVersion nproc [lib.json[,...]]
// With several rounds (comma-separated, one per round), every figure in the
// table is the median over the rounds, each mode's ratio is the ratio of the
// medians, and every round's own ratio is listed too. A round may be several
// outputs joined by '+' (one per mode, as run.sh measures them): their modes
// are merged, in order, into one output.
'use strict';
const fs = require('fs');
const [lfs, ffs, out, upBefore, upAfter, fversion, nproc, libFiles] = process.argv.slice(2);
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const mergeModes = (runs) => ({...runs[0], modes: Object.assign({}, ...runs.map((r) => r.modes))});
const readAll = (list) => (list || '').split(',').filter(Boolean)
  .map((round) => mergeModes(round.split('+').map(readJson)));
const lRuns = readAll(lfs);
const fRuns = readAll(ffs);
const libRuns = readAll(libFiles);
if (lRuns.length === 0 || lRuns.length !== fRuns.length) {
  throw new Error('need as many lqsd runs as fauxqs runs, at least one');
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round2 = (x) => Math.round(x * 100) / 100;
const round3 = (x) => Math.round(x * 1000) / 1000;
// One mode's figures, each the median over the rounds.
const medianMode = (runs, mode) => {
  const ms = runs.map((r) => r.modes[mode]);
  return {
    messages: ms[0].messages,
    msgs_per_s: Math.round(median(ms.map((m) => m.msgs_per_s))),
    latency: {p50_ms: round3(median(ms.map((m) => m.latency.p50_ms))),
              p99_ms: round3(median(ms.map((m) => m.latency.p99_ms)))},
    server_cpu_us_per_request: Math.round(median(ms.map((m) => m.server_cpu_us_per_request))),
  };
};
const l = lRuns[0];
const f = fRuns[0];

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
  if (!fRuns.every((r) => r.modes[mode]) || !lRuns.every((r) => r.modes[mode])) continue;
  const a = medianMode(lRuns, mode);
  const b = medianMode(fRuns, mode);
  const ratio = a.msgs_per_s / b.msgs_per_s;
  const perRound = lRuns.map((r, i) => round2(r.modes[mode].msgs_per_s /
                                              fRuns[i].modes[mode].msgs_per_s));
  summary[mode] = {lqsd_msgs_per_s: a.msgs_per_s, fauxqs_msgs_per_s: b.msgs_per_s,
                   ratio: round2(ratio), meets_3x: ratio >= target, ratio_per_round: perRound};
  const rounds = perRound.length > 1 ? ` (rounds: ${perRound.map((x) => x.toFixed(2)).join(', ')})` : '';
  rows.push(`| ${labels[mode] || mode} | ${a.messages} | ${a.msgs_per_s} | ${b.msgs_per_s} | ` +
    `**${ratio.toFixed(2)}x** ${ratio >= target ? 'yes' : 'NO'}${rounds} | ` +
    `${a.latency.p50_ms} / ${a.latency.p99_ms} | ${b.latency.p50_ms} / ${b.latency.p99_ms} | ` +
    `${a.server_cpu_us_per_request} | ${b.server_cpu_us_per_request} |`);
}
// The library's own figure for the lifecycle (bench/lqs_bench, same run).
// Information, not a target: on one serial connection most of each request is
// the kernel's loopback round trip (docs/performance.md, "Library vs HTTP");
// issue #31's targets are for many connections, against the limit of HTTP.
let library = null;
const libRows = libRuns.map((doc) => (doc.results || [])
  .find((r) => r.workload === 'life b10 100B t1 process')).filter(Boolean);
if (libRows.length > 0 && libRows.length === lRuns.length && lRuns.every((r) => r.modes.life)) {
  const row = libRows[0];
  const libMedian = median(libRows.map((r) => r.msgs_per_sec));
  const httpMedian = median(lRuns.map((r) => r.modes.life.msgs_per_s));
  const ratio = httpMedian / libMedian;
  library = {workload: row.workload, library_msgs_per_s: Math.round(libMedian),
             library_messages: row.messages, lqsd_http_msgs_per_s: Math.round(httpMedian),
             ratio: round2(ratio),
             ratio_per_round: libRows.map((r, i) => round2(lRuns[i].modes.life.msgs_per_s /
                                                           r.msgs_per_sec)),
             compared: 'lqs_bench life b10 100B t1 process (library, in process) vs load.js ' +
                       'life (same workload through lqsd over HTTP, 1 connection)'};
}
const result = {
  generated: new Date().toISOString(),
  machine: {nproc: Number(nproc), uptime_before: upBefore.trim(), uptime_after: upAfter.trim(),
            node: process.version},
  client: l.client || 'node',
  fauxqs_version: fversion,
  target: `lqsd >= ${target}x fauxqs msgs/s in every mode`,
  rounds: lRuns.length,
  summary,
  library_vs_http: library,
  // Round 1's full outputs; later rounds' under `later_rounds`.
  lqsd: l,
  fauxqs: f,
  later_rounds: lRuns.slice(1).map((r, i) => ({lqsd: r, fauxqs: fRuns[i + 1]})),
};
fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');

console.log(`load before: ${upBefore.trim()}`);
console.log(`load after:  ${upAfter.trim()}`);
// load.js writes no "client" key; lqs_http_load (C++) writes "client": "c++".
const clientName = (d) => (d.client ? `${d.client} (lqs_http_load)` : `Node ${process.version} (load.js)`);
console.log(`client: ${clientName(l)}${f.client !== l.client ? ` / fauxqs: ${clientName(f)}` : ''}, ` +
  `raw keep-alive sockets, ${l.concurrency} connections with one request in flight each ` +
  `(mixed: 1 producer + 1 consumer), ${l.body_bytes}-byte bodies; fauxqs ${fversion}\n`);
if (lRuns.length > 1) console.log(`medians of ${lRuns.length} rounds:\n`);
console.log('| mode | messages | lqsd msg/s | fauxqs msg/s | lqsd/fauxqs (>= 3x?) | ' +
  'lqsd p50 / p99 ms per call | fauxqs p50 / p99 ms per call | lqsd CPU us/req | fauxqs CPU us/req |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
if (library) {
  console.log(`\nlifecycle, library vs HTTP: lqs_bench ${library.library_msgs_per_s} msg/s, ` +
    `lqsd over HTTP ${library.lqsd_http_msgs_per_s} msg/s: ${library.ratio.toFixed(2)} ` +
    '(one serial connection: not a target, see docs/performance.md)' +
    (lRuns.length > 1 ? `; rounds: ${library.ratio_per_round.map((x) => x.toFixed(2)).join(', ')}` : ''));
}
console.log(`\nresults: ${out}`);
