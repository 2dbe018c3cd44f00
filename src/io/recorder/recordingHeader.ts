// The header a running service writes: what replay needs to fold the recording the way the service
// did (liveness thresholds and required attributes), and when the sweeper started.

import type { Config } from '../config/schema.ts';
import type { RecordingHeader } from './recordingFormat.ts';

export function recordingHeaderOf(config: Config, startedAt: number): RecordingHeader {
  return {
    startedAt,
    fleet: {
      heartbeat_interval: config.fleet.heartbeat_interval,
      stale_missed_heartbeats: config.fleet.stale_missed_heartbeats,
      required_attributes: [...config.fleet.required_attributes],
    },
  };
}
