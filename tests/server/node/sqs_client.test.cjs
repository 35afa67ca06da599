// @aws-sdk/client-sqs (AWS JSON 1.0; its middleware verifies the body MD5s of
// sends and receives) against lqsd: the SQS scenario of sqs_scenario.py.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const sqs = require("@aws-sdk/client-sqs");
const { startLqsd, md5, md5OfAttributes, client } = require("./lqsd.cjs");

const ACCOUNT = "123456789012";

test("client-sqs scenario", async (t) => {
  const server = await startLqsd();
  const c = client(server.url);
  const send = (cmd) => c.send(cmd);
  const expectError = async (promise, name, code, status) => {
    try {
      await promise;
    } catch (e) {
      assert.equal(e.name, name, `${e.name}: ${e.message}`);
      if (code) assert.equal(e.Code, code);
      if (status) assert.equal(e.$metadata.httpStatusCode, status);
      assert.match(e.$metadata.requestId, /^[0-9a-f-]{36}$/);
      return e;
    }
    assert.fail(`expected ${name}`);
  };

  try {
    await t.test("queues, attributes, tags", async () => {
      const { QueueUrl } = await send(new sqs.CreateQueueCommand({
        QueueName: "node-main", Attributes: { VisibilityTimeout: "45" }, tags: { team: "core" },
      }));
      assert.equal(QueueUrl, `${server.url}/${ACCOUNT}/node-main`);
      const got = await send(new sqs.GetQueueUrlCommand({ QueueName: "node-main" }));
      assert.equal(got.QueueUrl, QueueUrl);
      assert.match(got.$metadata.requestId, /^[0-9a-f-]{36}$/);
      const attrs = await send(new sqs.GetQueueAttributesCommand({
        QueueUrl, AttributeNames: ["All"] }));
      assert.equal(attrs.Attributes.VisibilityTimeout, "45");
      assert.equal(attrs.Attributes.QueueArn, `arn:aws:sqs:us-east-1:${ACCOUNT}:node-main`);
      const tags = await send(new sqs.ListQueueTagsCommand({ QueueUrl }));
      assert.deepEqual(tags.Tags, { team: "core" });
      await send(new sqs.TagQueueCommand({ QueueUrl, Tags: { env: "test" } }));
      await send(new sqs.UntagQueueCommand({ QueueUrl, TagKeys: ["team"] }));
      assert.deepEqual((await send(new sqs.ListQueueTagsCommand({ QueueUrl }))).Tags,
                       { env: "test" });
      const listed = await send(new sqs.ListQueuesCommand({ QueueNamePrefix: "node-" }));
      assert.deepEqual(listed.QueueUrls, [QueueUrl]);
      await expectError(send(new sqs.CreateQueueCommand({
        QueueName: "node-main", Attributes: { VisibilityTimeout: "46" } })),
        "QueueNameExists", "QueueAlreadyExists", 400);
    });

    await t.test("send and receive with attributes and verified MD5s", async () => {
      const { QueueUrl } = await send(new sqs.CreateQueueCommand({ QueueName: "node-msgs" }));
      const body = "node \r\n body \r with <xml> & \u00e9 \u{1F600}";
      const attributes = {
        s: { DataType: "String", StringValue: "value\r\n" },
        n: { DataType: "Number", StringValue: "42" },
        b: { DataType: "Binary", BinaryValue: Uint8Array.from([0, 1, 255, 13]) },
      };
      const sent = await send(new sqs.SendMessageCommand({
        QueueUrl, MessageBody: body, MessageAttributes: attributes }));
      assert.equal(sent.MD5OfMessageBody, md5(Buffer.from(body, "utf8")));
      assert.equal(sent.MD5OfMessageAttributes, md5OfAttributes(attributes));

      const r = await send(new sqs.ReceiveMessageCommand({
        QueueUrl, MessageAttributeNames: ["All"], MessageSystemAttributeNames: ["All"],
        WaitTimeSeconds: 1 }));
      assert.equal(r.Messages.length, 1);
      const m = r.Messages[0];
      assert.equal(m.Body, body);
      assert.equal(m.MD5OfBody, md5(Buffer.from(body, "utf8")));
      assert.equal(m.MD5OfMessageAttributes, md5OfAttributes(attributes));
      assert.equal(m.MessageAttributes.s.StringValue, "value\r\n");
      assert.deepEqual(Array.from(m.MessageAttributes.b.BinaryValue), [0, 1, 255, 13]);
      assert.equal(m.Attributes.ApproximateReceiveCount, "1");
      await send(new sqs.DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
      const empty = await send(new sqs.ReceiveMessageCommand({ QueueUrl }));
      assert.equal(empty.Messages, undefined);
    });

    await t.test("batches with per-entry failures", async () => {
      const { QueueUrl } = await send(new sqs.CreateQueueCommand({ QueueName: "node-batch" }));
      const res = await send(new sqs.SendMessageBatchCommand({ QueueUrl, Entries: [
        { Id: "a", MessageBody: "one" },
        { Id: "b", MessageBody: "bad \u0001" },
        { Id: "c", MessageBody: "three", MessageAttributes: {
          k: { DataType: "String", StringValue: "v" } } },
      ] }));
      assert.deepEqual(res.Successful.map((e) => e.Id).sort(), ["a", "c"]);
      assert.equal(res.Failed.length, 1);
      assert.equal(res.Failed[0].Code, "InvalidMessageContents");
      assert.equal(res.Failed[0].SenderFault, true);
      const r = await send(new sqs.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      assert.equal(r.Messages.length, 2);
      const vis = await send(new sqs.ChangeMessageVisibilityBatchCommand({ QueueUrl, Entries: [
        { Id: r.Messages[0].MessageId, ReceiptHandle: r.Messages[0].ReceiptHandle,
          VisibilityTimeout: 60 }] }));
      assert.equal(vis.Successful.length, 1);
      assert.equal(vis.Failed, undefined); // an empty list is left out
      const del = await send(new sqs.DeleteMessageBatchCommand({ QueueUrl, Entries: [
        ...r.Messages.map((m) => ({ Id: m.MessageId, ReceiptHandle: m.ReceiptHandle })),
        { Id: "garbage", ReceiptHandle: "garbage" }] }));
      assert.equal(del.Successful.length, 2);
      assert.equal(del.Failed[0].Code, "ReceiptHandleIsInvalid");
      // An empty list is left out: no Failed when all succeed, no Successful when all fail.
      const allOk = await send(new sqs.SendMessageBatchCommand({ QueueUrl, Entries: [
        { Id: "d", MessageBody: "four" }] }));
      assert.equal(allOk.Successful.length, 1);
      assert.equal(allOk.Failed, undefined);
      const allBad = await send(new sqs.SendMessageBatchCommand({ QueueUrl, Entries: [
        { Id: "e", MessageBody: "bad \u0001" }] }));
      assert.equal(allBad.Successful, undefined);
      assert.equal(allBad.Failed.length, 1);
      await expectError(send(new sqs.SendMessageBatchCommand({ QueueUrl, Entries:
        Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: "x" })) })),
        "TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400);
    });

    await t.test("visibility and long polling", async () => {
      const { QueueUrl } = await send(new sqs.CreateQueueCommand({ QueueName: "node-poll" }));
      const start = Date.now();
      const waiting = send(new sqs.ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 10 }));
      await new Promise((r) => setTimeout(r, 1000));
      await send(new sqs.SendMessageCommand({ QueueUrl, MessageBody: "wake" }));
      const got = await waiting;
      const elapsed = Date.now() - start;
      assert.equal(got.Messages[0].Body, "wake");
      assert.ok(elapsed >= 900 && elapsed < 8000, `elapsed ${elapsed}`);
      await send(new sqs.ChangeMessageVisibilityCommand({
        QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 0 }));
      const again = await send(new sqs.ReceiveMessageCommand({
        QueueUrl, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
      assert.equal(again.Messages[0].Attributes.ApproximateReceiveCount, "2");
      const t0 = Date.now();
      const none = await send(new sqs.ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
      assert.equal(none.Messages, undefined);
      assert.ok(Date.now() - t0 >= 900 && Date.now() - t0 < 5000);
    });

    await t.test("dead-letter queue and purge", async () => {
      const dlq = (await send(new sqs.CreateQueueCommand({ QueueName: "node-dlq" }))).QueueUrl;
      const dlqArn = `arn:aws:sqs:us-east-1:${ACCOUNT}:node-dlq`;
      const src = (await send(new sqs.CreateQueueCommand({ QueueName: "node-src", Attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
      } }))).QueueUrl;
      await send(new sqs.SendMessageCommand({ QueueUrl: src, MessageBody: "poison" }));
      const first = await send(new sqs.ReceiveMessageCommand({ QueueUrl: src, VisibilityTimeout: 0 }));
      assert.equal(first.Messages.length, 1);
      const second = await send(new sqs.ReceiveMessageCommand({ QueueUrl: src }));
      assert.equal(second.Messages, undefined);
      const dead = await send(new sqs.ReceiveMessageCommand({
        QueueUrl: dlq, MessageSystemAttributeNames: ["All"] }));
      assert.equal(dead.Messages[0].Body, "poison");
      assert.equal(dead.Messages[0].Attributes.DeadLetterQueueSourceArn,
                   `arn:aws:sqs:us-east-1:${ACCOUNT}:node-src`);
      const sources = await send(new sqs.ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq }));
      assert.deepEqual(sources.queueUrls, [src]);
      const none = await send(new sqs.ListDeadLetterSourceQueuesCommand({ QueueUrl: src }));
      assert.equal(none.queueUrls, undefined);
      await send(new sqs.PurgeQueueCommand({ QueueUrl: dlq }));
      await expectError(send(new sqs.PurgeQueueCommand({ QueueUrl: dlq })),
                        "PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403);
    });

    await t.test("errors", async () => {
      const e = await expectError(send(new sqs.GetQueueUrlCommand({ QueueName: "node-nope" })),
        "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400);
      assert.equal(e.message, "The specified queue does not exist.");
      assert.ok(e instanceof sqs.QueueDoesNotExist);
      const { QueueUrl } = await send(new sqs.CreateQueueCommand({ QueueName: "node-err" }));
      await expectError(send(new sqs.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 11 })),
        "InvalidParameterValue", "InvalidParameterValue", 400);
      await expectError(send(new sqs.DeleteMessageCommand({ QueueUrl, ReceiptHandle: "garbage" })),
        "ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404);
      await send(new sqs.DeleteQueueCommand({ QueueUrl }));
      await expectError(send(new sqs.SendMessageCommand({ QueueUrl, MessageBody: "x" })),
        "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400);
    });

    await t.test("another region has its own queues", async () => {
      const eu = client(server.url, { region: "eu-north-1" });
      const home = await send(new sqs.CreateQueueCommand({ QueueName: "node-regional" }));
      const away = await eu.send(new sqs.CreateQueueCommand({ QueueName: "node-regional" }));
      assert.equal(away.QueueUrl, `${server.url}/queue/eu-north-1/${ACCOUNT}/node-regional`);
      await eu.send(new sqs.SendMessageCommand({ QueueUrl: away.QueueUrl, MessageBody: "eu" }));
      const got = await eu.send(new sqs.ReceiveMessageCommand({ QueueUrl: away.QueueUrl }));
      assert.deepEqual(got.Messages.map((m) => m.Body), ["eu"]);
      const none = await send(new sqs.ReceiveMessageCommand({ QueueUrl: home.QueueUrl }));
      assert.equal(none.Messages, undefined);
      const attrs = await eu.send(new sqs.GetQueueAttributesCommand({
        QueueUrl: away.QueueUrl, AttributeNames: ["QueueArn"] }));
      assert.equal(attrs.Attributes.QueueArn, `arn:aws:sqs:eu-north-1:${ACCOUNT}:node-regional`);
      eu.destroy();
    });
  } finally {
    c.destroy();
    assert.equal(await server.stop(), 0);
  }
});
