// UI-only ordering of the whole filtered set before paging (SPEC UI rule 3: `sort` and `order` are not
// filters). Ties fall back to instance_uid ascending, so pages are stable while agents come and go.

import { attributeOf, type AgentState } from '../../projections/agent/agentState.ts';
import { displayName } from '../views/agentView.ts';
import { agentStatus, statusRank } from './agentStatus.ts';
import { compareText } from './collate.ts';

export const sortKeys = ['status', 'name', 'version', 'via', 'transport', 'last_seen', 'instance'] as const;
export type SortKey = (typeof sortKeys)[number];
export type SortOrder = 'asc' | 'desc';

export interface Sort {
  readonly key: SortKey;
  readonly order: SortOrder;
}

/** No `sort` given: the read path's instance_uid order, which costs no sort at all. */
export const defaultSort: Sort = { key: 'instance', order: 'asc' };

export const isSortKey = (text: string): text is SortKey => (sortKeys as readonly string[]).includes(text);

const byUid = (a: AgentState, b: AgentState): number => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

type Compare = (a: AgentState, b: AgentState) => number;

const comparators: Readonly<Record<SortKey, Compare>> = {
  status: (a, b) => statusRank[agentStatus(a)] - statusRank[agentStatus(b)],
  name: (a, b) => compareText(displayName(a), displayName(b)),
  // Numeric collation orders 1.10.0 after 1.9.2; agents without a version sort first ascending.
  version: (a, b) =>
    compareText(attributeOf(a, 'service.version') ?? '', attributeOf(b, 'service.version') ?? ''),
  via: (a, b) => Number(a.session.viaGateway) - Number(b.session.viaGateway),
  transport: (a, b) => compareText(a.session.transport, b.session.transport),
  last_seen: (a, b) => a.lastSeen - b.lastSeen,
  instance: () => 0,
};

/** Sorts in place and returns the array. The uid tie-break is ascending in both orders. */
export function sortAgents(agents: AgentState[], sort: Sort): AgentState[] {
  if (sort.key === 'instance')
    return sort.order === 'asc' ? agents.sort(byUid) : agents.sort((a, b) => byUid(b, a));
  const compare = comparators[sort.key];
  const sign = sort.order === 'asc' ? 1 : -1;
  return agents.sort((a, b) => sign * compare(a, b) || byUid(a, b));
}
