// Starts an lqsd ($LQSD) on 127.0.0.1:0 for a Node test and stops it.
"use strict";

const { spawn } = require("node:child_process");
const crypto = require("node:crypto");

function startLqsd(args = []) {
  const bin = process.env.LQSD;
  if (!bin) throw new Error("set LQSD=/path/to/lqsd");
  const proc = spawn(bin, ["--listen", "127.0.0.1:0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("lqsd did not start")), 30000);
    proc.on("exit", (code) => reject(new Error(`lqsd exited with ${code}`)));
    proc.stdout.on("data", (chunk) => {
      out += chunk.toString();
      const m = out.match(/lqsd listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners("exit");
        resolve({
          url: m[1],
          stop: () =>
            new Promise((res) => {
              proc.on("exit", (code) => res(code));
              proc.kill("SIGTERM");
            }),
        });
      }
    });
  });
}

const md5 = (data) => crypto.createHash("md5").update(data).digest("hex");

// MD5OfMessageAttributes (docs/sqs-reference.md §5.5).
function md5OfAttributes(attrs) {
  const parts = [];
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const prefixed = (buf) => [u32(buf.length), buf];
  for (const name of Object.keys(attrs).sort()) {
    const v = attrs[name];
    parts.push(...prefixed(Buffer.from(name, "utf8")), ...prefixed(Buffer.from(v.DataType, "utf8")));
    if (v.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]), ...prefixed(Buffer.from(v.BinaryValue)));
    } else {
      parts.push(Buffer.from([1]), ...prefixed(Buffer.from(v.StringValue, "utf8")));
    }
  }
  return md5(Buffer.concat(parts));
}

function client(url, extra = {}) {
  const { SQSClient } = require("@aws-sdk/client-sqs");
  return new SQSClient({
    endpoint: url,
    region: "us-east-1",
    credentials: { accessKeyId: "lqsdtest", secretAccessKey: "lqsdtest" },
    maxAttempts: 1,
    ...extra,
  });
}

module.exports = { startLqsd, md5, md5OfAttributes, client };
