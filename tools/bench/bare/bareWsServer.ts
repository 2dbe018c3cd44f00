// Baseline for the throughput benchmark: a bare `ws` server on /v1/opamp that reads each binary frame
// and answers it with the same small framed ServerToAgent, doing nothing else. Prints {"url"} when ready.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

const reply = Buffer.from([0x00, 0x38, 0x15]); // header 0, then capabilities (field 7) = 21
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
const server = createServer((_req, res) => res.writeHead(501).end());
server.on('upgrade', (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on('message', () => ws.send(reply));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
process.on('SIGTERM', () => process.exit(0));
