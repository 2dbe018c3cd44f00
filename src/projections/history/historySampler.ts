// The history's adapter: every 10 s of the injected scheduler (virtual in specs), one pass over the
// registry and the handler's running totals become a sample. The pass takes agentsPerTurn agents
// per turn of the scheduler: at 100,000 agents one pass in one turn took up to 190 ms, delaying every
// socket and request behind it. Errors are reported, never thrown: a failed sample leaves a gap, the
// timer goes on.

import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { AgentState } from '../agent/agentState.ts';
import type { ProjectionErrorHandler } from '../registry/registryProjection.ts';
import type { ConfigState } from '../remoteConfig/configState.ts';
import { createFleetHistory, fineWindow, type FleetHistory } from './fleetHistory.ts';
import { createFleetTally, ratePerSecond, type TrafficTotals } from './fleetSample.ts';

export interface HistorySampler {
  readonly history: Pick<FleetHistory, 'read'>;
  /**
   * Starts one sample now (also what each tick does), recorded once its pass over the agents ended:
   * at once for up to agentsPerTurn agents, else over later turns of the scheduler. Skipped while
   * the one before is still being taken.
   */
  sampleNow(): void;
  /** Starts the 10 s timer; the rates of the first sample count from here. */
  start(): void;
  stop(): void;
}

/** Agents counted per turn of the scheduler: a few milliseconds. */
export const agentsPerTurn = 5000;

export function createHistorySampler(deps: {
  agents: () => Iterable<AgentState>;
  configStateOf: (agent: AgentState) => ConfigState;
  traffic: () => TrafficTotals;
  scheduler: SchedulerLike;
  onError: ProjectionErrorHandler;
}): HistorySampler {
  const { scheduler } = deps;
  const history = createFleetHistory();
  let last = { at: scheduler.now(), ...deps.traffic() };
  /** The rest of the sample being taken, scheduled; undefined when none is. */
  let taking: Subscription | undefined;
  function sampleNow(): void {
    if (taking !== undefined) return;
    try {
      const now = { at: scheduler.now(), ...deps.traffic() };
      const elapsed = now.at - last.at;
      const rates = {
        messages: ratePerSecond(last.messages, now.messages, elapsed),
        errors: ratePerSecond(last.errors, now.errors, elapsed),
      };
      last = now;
      const agents = deps.agents()[Symbol.iterator]();
      const tally = createFleetTally(deps.configStateOf);
      const walk = (): void => {
        taking = undefined;
        try {
          for (let n = 0; n < agentsPerTurn; n++) {
            const next = agents.next();
            if (next.done === true) return history.record(now.at, tally.sample(rates));
            tally.add(next.value);
          }
          taking = scheduler.schedule(walk);
        } catch (error) {
          deps.onError('history', error);
        }
      };
      walk();
    } catch (error) {
      deps.onError('history', error);
    }
  }
  let subscription: Subscription | undefined;
  return {
    history,
    sampleNow,
    start() {
      last = { at: scheduler.now(), ...deps.traffic() };
      subscription ??= interval(fineWindow.stepMs, scheduler).subscribe(sampleNow);
    },
    stop() {
      subscription?.unsubscribe();
      taking?.unsubscribe();
      taking = undefined;
    },
  };
}
