// Every remote config the service offers, counted per agent and hash from its bus: what "offered
// once, never in a loop" is checked against, on the service's side (the peers count on theirs).

import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';

export interface OfferCount {
  /** How many times the service offered this config hash to this agent. */
  offersOf(uid: string, hash: string): number;
  stop(): void;
}

export function countOffers(app: App): OfferCount {
  const offers: string[] = [];
  const sub = app.bus.events$.subscribe((e: FleetEvent) => {
    if (e.type === 'AgentRemoteConfigOffered') offers.push(`${e.data.uid} ${e.data.hash}`);
  });
  return {
    offersOf: (uid, hash) => offers.filter((o) => o === `${uid} ${hash}`).length,
    stop: () => sub.unsubscribe(),
  };
}
