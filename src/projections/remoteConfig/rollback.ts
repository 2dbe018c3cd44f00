// Recognising an agent that went back to an older config (issue 24; opamp-spec#397: after an
// automatic rollback the OpenTelemetry supervisor reports the old config as APPLIED although the new
// one was offered). Without this, the service sees a hash that is not the desired one and offers the
// new config again, the agent fails and rolls back again: a loop. Pure.
//
// The rule: the agent had acknowledged hash N (APPLYING or FAILED for N), and now reports APPLIED for
// another hash that the service did not just offer. It went back from N. An agent that never
// acknowledged N (it lost the offer, or restarted before it arrived) is not taken for one that rolled
// back: it is offered N again as before.

import type { RemoteConfigStatus } from '../../events/agentData.ts';

/**
 * The hash the agent rolled back from after this report, given the one recorded before it.
 * @param offered the hash last sent to the agent on its connection (null when unknown).
 */
export function rolledBackFrom(
  before: RemoteConfigStatus | null,
  report: RemoteConfigStatus,
  offered: string | null,
  recorded: string | null,
): string | null {
  const acknowledged =
    before !== null && before.hash !== '' && (before.status === 'applying' || before.status === 'failed');
  if (acknowledged && report.status === 'applied' && report.hash !== before.hash && report.hash !== offered)
    return before.hash;
  // Reporting the hash it went back from (applying it again) ends the rollback.
  return report.hash === recorded ? null : recorded;
}
