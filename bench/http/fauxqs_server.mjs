// bench/http/fauxqs_server.mjs — starts fauxqs for run.sh: in memory, on the
// port given as the first argument, without request logging.
//
// fauxqs's own command line (`npx fauxqs`, dist/cli.js) always logs two JSON
// lines per request: it passes `logger: true` to startFauxqs, which wins over
// FAUXQS_LOGGER=false. lqsd runs the benchmark at --log-level error, so
// fauxqs is started here through its documented programmatic API with
// `logger: false` instead.
import { startFauxqs } from "fauxqs";

const port = Number.parseInt(process.argv[2] ?? "", 10);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node fauxqs_server.mjs PORT");
  process.exit(2);
}
const server = await startFauxqs({ port, host: "localhost", logger: false });
console.log(`fauxqs listening on ${server.address}`);
