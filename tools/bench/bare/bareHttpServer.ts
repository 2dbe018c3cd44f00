// Baseline for the throughput benchmark: a bare `http` server that reads each POST body and answers
// 200 with the same small ServerToAgent, doing nothing else. Prints {"url"} when ready.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = Buffer.from([0x38, 0x15]); // capabilities (field 7) = 21
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': reply.length });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
process.on('SIGTERM', () => process.exit(0));
