// Summarises vitest's JSON report of a fauxqs-against-lqsd run.
// A test counts as "not applicable" when its failure (or its file's/suite hook's
// failure) carries the NOT_APPLICABLE marker thrown by the glue: it used a fauxqs
// in-process API, a fauxqs internal class, SNS or S3.
// Usage: node summarize.mjs results.json [--failures]
import { readFileSync } from "node:fs";
import path from "node:path";

const [file, ...flags] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, "utf8"));
const NA = "NOT_APPLICABLE";
const counts = { passed: 0, failed: 0, notApplicable: 0, skipped: 0 };
const failures = [];
const notApplicable = [];

const naReason = (text) => {
  const m = /NOT_APPLICABLE: (.*?)(?: is not part of SQS|$)/m.exec(text);
  return m ? m[1] : "";
};

for (const suite of report.testResults) {
  const fileName = path.basename(suite.name);
  const fileMsg = suite.message ?? "";
  for (const t of suite.assertionResults) {
    const msgs = (t.failureMessages ?? []).join("\n");
    const name = `${fileName} > ${[...t.ancestorTitles, t.title].join(" > ")}`;
    if (t.status === "passed") counts.passed++;
    else if (msgs.includes(NA) || (t.status !== "failed" && fileMsg.includes(NA))) {
      counts.notApplicable++;
      notApplicable.push(`${name}  [${naReason(msgs || fileMsg)}]`);
    } else if (t.status === "failed") {
      counts.failed++;
      failures.push({ name, msg: msgs.split("\n").slice(0, 12).join("\n") });
    } else counts.skipped++;
  }
  if (suite.assertionResults.length === 0 && fileMsg) {
    failures.push({ name: `${fileName} (file failed to run)`, msg: fileMsg.slice(0, 800) });
  }
}

console.log(
  `passed ${counts.passed}, failed ${counts.failed}, not applicable ${counts.notApplicable}, ` +
    `skipped by fauxqs ${counts.skipped}`,
);
console.log(`\nNot applicable (${notApplicable.length}):`);
for (const n of notApplicable) console.log(`  ${n}`);
console.log(`\nFailed (${failures.length}):`);
for (const f of failures) {
  console.log(`- ${f.name}`);
  if (flags.includes("--failures")) console.log(f.msg.replace(/^/gm, "    "));
}
