// Waits for a domain event on the bus (integration specs): resolves with the first event that matches.

import { filter, firstValueFrom, timeout } from 'rxjs';
import type { EventBus } from '../../src/events/bus.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';

export function nextEvent<T extends FleetEvent['type']>(
  bus: EventBus,
  type: T,
  where: (e: Extract<FleetEvent, { type: T }>) => boolean = () => true,
): Promise<Extract<FleetEvent, { type: T }>> {
  return firstValueFrom(
    bus.events$.pipe(
      filter(
        (e): e is Extract<FleetEvent, { type: T }> =>
          e.type === type && where(e as Extract<FleetEvent, { type: T }>),
      ),
      timeout({ first: 5000 }),
    ),
  );
}
