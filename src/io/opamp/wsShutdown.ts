// Shutdown bounded by configuration, not by peers (docs/protocol.md "Shutdown"): a peer that never
// answers the close frame would otherwise hold the process for ws's own 30 s close timeout.

import type { WebSocket } from 'ws';

/**
 * Sends every socket the close frame, then terminates those whose close has not completed within
 * `timeoutMs`; resolves once all are closed, with how many were terminated (WsTransport.closeAll).
 * `sockets` is the transport's set, which a socket leaves when its close completes.
 */
export async function closeWithin(
  sockets: ReadonlySet<WebSocket>,
  code: number,
  reason: string,
  timeoutMs: number,
): Promise<number> {
  const open = [...sockets];
  const closed = Promise.all(
    open.map(
      (ws) =>
        new Promise<void>((resolve) => (sockets.has(ws) ? ws.once('close', () => resolve()) : resolve())),
    ),
  );
  for (const ws of open) ws.close(code, reason);
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!late) return 0;
  const cut = open.filter((ws) => sockets.has(ws));
  for (const ws of cut) ws.terminate();
  // Terminating destroys the socket: its close (and the handler's disconnects) follow at once.
  await closed;
  return cut.length;
}
