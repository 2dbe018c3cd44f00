// The fleet-100k scenario's figures, conditions and goals (scenarios/13-fleet-100k.ts measures).

import type { BenchContext, ScenarioResult } from '../scenario.ts';
import type { FleetRun } from '../scenarios/13-fleet-100k.ts';
import { percentile, round } from './numbers.ts';
import { p99 } from './listProbe.ts';
import { benchDatabaseLabel } from '../persistence/benchDatabase.ts';

const GiB = 2 ** 20; // in KiB

export function report(
  ctx: BenchContext,
  r: FleetRun,
  settings: { gates: Record<string, string>; applyTimeout: string },
): ScenarioResult {
  const { shape } = r;
  const perAgentKiB = (r.mem.rss - r.rssBefore) / Math.max(r.connected, 1);
  const listP99 = p99(r.lists.all);
  const refused = Object.values(r.refused).reduce((a, b) => a + b, 0);
  const errors = r.fleetErrors + r.lists.errors + refused + r.jobReadErrors.length;
  const targets = Object.values(r.counts).reduce((a, b) => a + b, 0);
  const cpuPerMessageUs = (r.cpu / Math.max(r.messages, 1)) * 1e6;
  // A quick run's 2,000 agents say nothing about 100,000: its goal lines are printed, not judged.
  const verdict = (ok: boolean) => (ctx.quick ? 'not judged (quick run)' : ok ? 'met' : 'not met');
  // Memory and rollout time of a fleet that never settled describe a smaller fleet: not met, and why.
  const whole = (ok: boolean) =>
    r.settled || ctx.quick
      ? verdict(ok)
      : `not met (the fleet did not settle: ${r.connected} of ${shape.agents} connected)`;
  return {
    rows: [
      {
        fleet: `${shape.agents}: ${shape.direct} direct + ${shape.relayed} via ${shape.gateways} gateways`,
        'agents connected': `${r.connected}${r.settled ? '' : ' (did not settle)'}`,
        'RSS before → with fleet MiB': `${round(r.rssBefore / 1024)} → ${round(r.mem.rss / 1024)}`,
        'RSS per agent KiB': round(perAgentKiB, 2),
        'peak RSS MiB': round(r.mem.peak / 1024),
        'connect + r1 applied s': round(r.connectSeconds, 1),
        'arming → last target applied s': round(r.lastAppliedSeconds, 1),
        'arming → every target finished s': round(r.rolloutSeconds, 1),
        'job (targets)': `${r.status} (${Object.entries(r.counts)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')})`,
        'server CPU µs per message': round(cpuPerMessageUs, 1),
        'list p50 / p99 ms': `${round(percentile(r.lists.all, 0.5), 1)} / ${round(listP99, 1)}`,
        errors,
      },
    ],
    conditions: [
      `one service process with persistence on (${benchDatabaseLabel()}), agents.tokens set (one token, allowed to be a gateway) and every agent presenting it, so every id is bound to it in PostgreSQL; heartbeats every 30 s; measured once (${ctx.quick ? 'quick: 2,000 agents' : 'the fleet takes minutes to build'})`,
      `the fleet: simulator agents (tools/simulate, the ws library) with 10 attributes, 1 % health flaps per heartbeat and a 1 KiB config, ramping at 5,000 per second; direct WebSockets up to the open-files limit (${ctx.fdLimit}, less 3,000 for everything else), the rest through gateway connections of at most 8,000 agents; two child processes generate it (direct, gateways), not the benchmark process, on the same 2 cores as the server and PostgreSQL (their CPU during the rollout: ${round(r.loadCpu, 1)} s against the server's ${round(r.cpu, 1)} s)`,
      `churn: 1 % of the fleet per minute throughout, each event one of: disconnect (agent_disconnect, back 5 s later), restart (same id, sequence from 0, back 60 ms later), replacement (a new id in the slot)`,
      `RSS before: the settled service with the r1 config stored, before any agent; with fleet: ${ctx.quick ? 2 : 10} s after 99.5 % of the agents applied r1 (or after the wait for that ended, ${ctx.quick ? 60 : 300} s); per agent = (with − before) / agents connected then`,
      `rollout: revision 2 (1 KiB, a draft) of a config kept in PostgreSQL, job filter connected=true, target_mode snapshot, stages 1, 10 %, 50 %, 100 % with no wait, gates ${JSON.stringify(settings.gates)}, apply_timeout ${settings.applyTimeout} (a target churn replaced never applies and fails after it); agents answer APPLYING, then APPLIED 20 ms later; followed by GET /api/jobs/{id} every 250 ms. "last target applied" is when the job's succeeded count last grew; "every target finished" when the job left running (${targets} targets)`,
      `server CPU per message: the server's CPU (utime + stime) from arming to the end, over the messages the fleet sent meanwhile (${r.messages})`,
      `lists: sequential GETs, round robin over ${[...r.lists.byQuery.keys()].join('; ')}, from arming to the end (${r.lists.all.length} requests; p99 per query: ${[...r.lists.byQuery.entries()].map(([k, v]) => `${k} ${round(p99(v), 1)} ms`).join(', ')})`,
      `errors: the fleet's (${JSON.stringify(r.errorKinds)}), list answers other than 200 (${r.lists.errors}), job reads that failed (${r.jobReadErrors.length}${r.jobReadErrors.length > 0 ? `, first: ${r.jobReadErrors[0]}` : ''}), and svc_opamp_refused_total at the end (${JSON.stringify(r.refused)})`,
    ],
    goals: [
      `RSS with 100,000 agents ≤ 1 GiB: ${whole(r.mem.rss <= GiB)} (${round(r.mem.rss / 1024)} MiB with ${r.connected} agents)`,
      `list p99 during the rollout ≤ 50 ms: ${verdict(listP99 <= 50)} (${round(listP99, 1)} ms)`,
      // A target that churn replaced never applies; the gates let such failures through, so the job
      // ends awaiting promotion rather than succeeded, and the rollout still reached everyone else.
      `rollout ≤ 60 s from arming to every target finished (succeeded, or awaiting promotion with the failures the gates let through): ${whole(r.rolloutSeconds <= 60 && (r.status === 'succeeded' || r.status === 'awaiting_promotion'))} (${round(r.rolloutSeconds, 1)} s, ${r.status}, ${r.counts.failed ?? 0} failed)`,
      `errors 0: ${verdict(errors === 0)} (${errors})`,
    ],
  };
}
