// What the one message handler (handler.ts) gives its transports for each AgentToServer, and what it
// tells the metrics collector. Kept apart so the transports and the reply helpers depend on the
// contract, not on the handler.

export type HandleResult =
  /**
   * `reply`, then `tail` when present: the remote config field shared by many replies (reply.ts).
   * Every reply starts with connection.replyHeadroom zero bytes, left for the transport's framing.
   */
  | {
      readonly ok: true;
      readonly reply: Uint8Array;
      readonly tail?: Uint8Array | undefined;
      /** A second ServerToAgent for the same agent, ready later (the answer to a CSR, certificateOffer.ts). */
      readonly after?: Promise<Uint8Array | undefined> | undefined;
    }
  /**
   * A bad request. On WebSocket a decodable message with a bad id is answered with `reply` (a
   * ServerErrorResponse of type BadRequest); undecodable bytes have no reply and are skipped (as
   * opamp-go does). On HTTP either becomes a 400.
   */
  | {
      readonly ok: false;
      readonly reply: Uint8Array | null;
      readonly error: string;
      /** The HTTP status (400 when absent) and headers a plain-HTTP agent gets (refusal.ts). */
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A HandleResult now, or once the credential store answered (agentAdmission.ts). */
export type PendingResult = HandleResult | Promise<HandleResult>;

/** The result of a call that cannot wait: a host without credentials (the offline replay, specs). */
export function handledNow(result: PendingResult): HandleResult {
  if (result instanceof Promise) throw new Error('the message waits for the credential store');
  return result;
}

/** Counts what the metrics collector reports for the protocol (messages and message errors). */
export interface ProtocolObserver {
  messageReceived(): void;
  messageFailed(reason: string): void;
  /** A message refused by a rule rather than unreadable (svc_opamp_refused_total{reason}). */
  refused?(reason: string, remoteAddr?: string): void;
  /** A WebSocket's reads paused while its messages wait for the credential store (svc_opamp_reads_paused_total). */
  readsPaused?(): void;
}
