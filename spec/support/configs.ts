// Config revisions and events for specs of the remote-config projections.

import type { ConfigRevisionData } from '../../src/events/configData.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import { bodyHashOf } from '../../src/projections/remoteConfig/desiredConfig.ts';

export function revision(
  name: string,
  selector: string,
  body: string,
  over: Partial<ConfigRevisionData> = {},
): ConfigRevisionData {
  return {
    name,
    revision: 1,
    selector,
    body,
    contentType: 'text/yaml',
    enabled: true,
    bodyHash: bodyHashOf(over.body ?? body),
    ...over,
  };
}

export const configChanged = (config: ConfigRevisionData, at = 0): FleetEvent => ({
  type: 'RemoteConfigChanged',
  at,
  data: { config },
});

export const configRemoved = (name: string, at = 0): FleetEvent => ({
  type: 'RemoteConfigRemoved',
  at,
  data: { name },
});
