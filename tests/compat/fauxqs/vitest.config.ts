// Runs fauxqs's SQS tests (test/sqs/*.test.ts of a fauxqs checkout) against lqsd.
// run.sh copies this directory next to the fauxqs test tree and its node_modules;
// FAUXQS_ROOT names the copied fauxqs tree.
import { fileURLToPath } from "node:url";
import path from "node:path";
import { defineConfig } from "vitest/config";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = process.env.FAUXQS_ROOT ?? path.join(here, "fauxqs");

export default defineConfig({
  root,
  resolve: {
    alias: [
      // The fauxqs server the tests start in-process becomes an lqsd process.
      { find: /^(\.\.\/)+src\/app\.js$/, replacement: path.join(here, "lqsd-server.ts") },
      // fauxqs internals some tests unit-test directly: not applicable.
      { find: /^(\.\.\/)+src\/sqs\/sqsStore\.js$/, replacement: path.join(here, "stubs/sqs-store.ts") },
      { find: /^(\.\.\/)+src\/common\/prng\.js$/, replacement: path.join(here, "stubs/prng.ts") },
      // SNS and S3 are outside lqsd: not applicable.
      { find: /^@aws-sdk\/client-(sns|s3)$/, replacement: path.join(here, "stubs/aws-sns-s3.ts") },
    ],
  },
  test: {
    globals: true,
    include: ["test/sqs/*.test.ts"],
    setupFiles: [path.join(here, "setup-fetch.ts")],
    // Two workers: each test file gets its own lqsd, and the timing-sensitive
    // long-poll tests should not starve on a small machine.
    maxWorkers: Number(process.env.FAUXQS_WORKERS ?? 2),
  },
});
