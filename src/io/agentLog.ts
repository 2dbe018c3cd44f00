// Log lines an agent causes (its failed remote configs, its compliance changes, its refused CSRs),
// bounded per agent (docs/security.md "Limits and hostile input"): one agent reporting 1,000 failed
// statuses a second must not write megabytes of log, nor drown the lines of the rest of the fleet.
// Each agent may cause `linesPerWindow` lines per `windowMs`; the lines past that are counted
// (`onSuppressed`: svc_log_lines_suppressed_total) and not written, and the agent's next line written
// says how many of its lines were left out (`suppressed`). Text an agent chose (an error message) is
// cut to `maxTextLength` characters.

import type { Logger } from './logger.ts';

export interface AgentLogOptions {
  readonly now: () => number;
  readonly linesPerWindow?: number;
  readonly windowMs?: number;
  readonly maxTextLength?: number;
  /** A line not written. */
  readonly onSuppressed?: () => void;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

export interface AgentLog {
  /** Writes `message` for agent `uid` at `level`, unless the agent's budget for now is spent. */
  write(level: Level, uid: string, fields: Record<string, unknown>, message: string): void;
  /** An agent's text, cut to the bound (`…` and its full length appended when cut). */
  text(value: string): string;
}

export const agentLogDefaults = { linesPerWindow: 20, windowMs: 60_000, maxTextLength: 1024 } as const;

/** Agents tracked at most before windows that have ended are swept (bounded memory). */
const sweepAbove = 10_000;

interface Budget {
  windowStart: number;
  lines: number;
  suppressed: number;
}

export function createAgentLog(logger: Logger, options: AgentLogOptions): AgentLog {
  const linesPerWindow = options.linesPerWindow ?? agentLogDefaults.linesPerWindow;
  const windowMs = options.windowMs ?? agentLogDefaults.windowMs;
  const maxTextLength = options.maxTextLength ?? agentLogDefaults.maxTextLength;
  const budgets = new Map<string, Budget>();

  /** Forgets agents whose window ended with nothing left out (nothing to report on their next line). */
  function sweep(now: number): void {
    for (const [uid, b] of budgets)
      if (now - b.windowStart >= windowMs && b.suppressed === 0) budgets.delete(uid);
  }

  return {
    write(level, uid, fields, message) {
      if (!logger.isLevelEnabled(level)) return;
      const now = options.now();
      let budget = budgets.get(uid);
      if (budget === undefined) {
        if (budgets.size >= sweepAbove) sweep(now);
        budget = { windowStart: now, lines: 0, suppressed: 0 };
        budgets.set(uid, budget);
      } else if (now - budget.windowStart >= windowMs) {
        budget.windowStart = now;
        budget.lines = 0;
      }
      if (budget.lines >= linesPerWindow) {
        budget.suppressed++;
        options.onSuppressed?.();
        return;
      }
      budget.lines++;
      const suppressed = budget.suppressed;
      budget.suppressed = 0;
      logger[level](suppressed > 0 ? { ...fields, suppressed } : fields, message);
    },
    text(value) {
      if (value.length <= maxTextLength) return value;
      return `${value.slice(0, maxTextLength)}… (${value.length} characters)`;
    },
  };
}
