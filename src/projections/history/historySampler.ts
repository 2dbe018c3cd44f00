// The history's adapter: every 10 s of the injected scheduler (virtual in specs), one pass over the
// registry and the handler's running totals become a sample. Errors are reported, never thrown: a
// failed sample leaves a gap, the timer goes on.

import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { AgentState } from '../agent/agentState.ts';
import type { ProjectionErrorHandler } from '../registry/registryProjection.ts';
import type { ConfigState } from '../remoteConfig/configState.ts';
import { createFleetHistory, fineWindow, type FleetHistory } from './fleetHistory.ts';
import { ratePerSecond, sampleFleet, type TrafficTotals } from './fleetSample.ts';

export interface HistorySampler {
  readonly history: Pick<FleetHistory, 'read'>;
  /** Takes one sample now (also what each tick does). */
  sampleNow(): void;
  /** Starts the 10 s timer; the rates of the first sample count from here. */
  start(): void;
  stop(): void;
}

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
  function sampleNow(): void {
    try {
      const now = { at: scheduler.now(), ...deps.traffic() };
      const elapsed = now.at - last.at;
      const rates = {
        messages: ratePerSecond(last.messages, now.messages, elapsed),
        errors: ratePerSecond(last.errors, now.errors, elapsed),
      };
      last = now;
      history.record(now.at, sampleFleet(deps.agents(), deps.configStateOf, rates));
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
    stop: () => subscription?.unsubscribe(),
  };
}
