// sqs-consumer (on @aws-sdk/client-sqs) consuming lqsd queues with long
// polling until they are empty: a batch handler (DeleteMessageBatch with
// MessageIds as entry ids) and a single-message handler that fails once
// (terminateVisibilityTimeout: ChangeMessageVisibility 0, then redelivery).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const sqs = require("@aws-sdk/client-sqs");
const { Consumer } = require("sqs-consumer");
const { startLqsd, client } = require("./lqsd.cjs");

async function fill(c, QueueUrl, n) {
  for (let i = 0; i < n; i += 10) {
    const Entries = [];
    for (let j = i; j < Math.min(n, i + 10); j++) Entries.push({ Id: `m${j}`, MessageBody: `job ${j}` });
    const r = await c.send(new sqs.SendMessageBatchCommand({ QueueUrl, Entries }));
    assert.equal((r.Failed ?? []).length, 0);
  }
}

async function counts(c, QueueUrl) {
  const r = await c.send(new sqs.GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["All"] }));
  return [r.Attributes.ApproximateNumberOfMessages, r.Attributes.ApproximateNumberOfMessagesNotVisible];
}

// Runs a consumer until the queue reports empty after `expected` messages.
function consumeUntilEmpty(options, expected) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const errors = [];
    const consumer = Consumer.create({
      ...options,
      waitTimeSeconds: 1,
      pollingWaitTimeMs: 0,
    });
    const timer = setTimeout(() => {
      consumer.stop();
      reject(new Error(`timed out after ${seen.length} messages; errors: ${errors.join("; ")}`));
    }, 60000);
    consumer.on("message_processed", (m) => seen.push(m.Body));
    consumer.on("error", (e) => errors.push(e.message));
    consumer.on("empty", () => {
      if (seen.length >= expected) {
        clearTimeout(timer);
        consumer.stop();
        resolve({ seen, errors });
      }
    });
    consumer.start();
  });
}

test("sqs-consumer drains queues with long polling", async (t) => {
  const server = await startLqsd();
  const c = client(server.url);
  try {
    await t.test("batch handler", async () => {
      const { QueueUrl } = await c.send(new sqs.CreateQueueCommand({ QueueName: "consumer-batch" }));
      await fill(c, QueueUrl, 35);
      const { seen, errors } = await consumeUntilEmpty({
        queueUrl: QueueUrl, sqs: c, batchSize: 10,
        handleMessageBatch: async (messages) => messages,
      }, 35);
      assert.deepEqual(errors, []);
      assert.equal(new Set(seen).size, 35);
      assert.deepEqual(await counts(c, QueueUrl), ["0", "0"]);
    });

    await t.test("single handler with a retried failure", async () => {
      const { QueueUrl } = await c.send(new sqs.CreateQueueCommand({ QueueName: "consumer-single" }));
      await fill(c, QueueUrl, 12);
      let failedOnce = false;
      const { seen } = await consumeUntilEmpty({
        queueUrl: QueueUrl, sqs: c, batchSize: 5, terminateVisibilityTimeout: true,
        handleMessage: async (m) => {
          if (m.Body === "job 3" && !failedOnce) {
            failedOnce = true;
            throw new Error("transient failure");
          }
          return m;
        },
      }, 12);
      assert.ok(failedOnce);
      assert.equal(new Set(seen).size, 12);
      assert.deepEqual(await counts(c, QueueUrl), ["0", "0"]);
    });
  } finally {
    c.destroy();
    assert.equal(await server.stop(), 0);
  }
});
