// The fleet table's template locals: rows of the current page of the sorted set, column headers with
// sort links, "Showing A–B of N", and an empty state that says why it is empty.

import type { AgentState } from '../../projections/agent/agentState.ts';
import type { ConfigState } from '../../projections/remoteConfig/configState.ts';
import { agentSummary } from '../views/agentView.ts';
import { agentStatus, statusLabels, type AgentStatus } from './agentStatus.ts';
import { configBadge } from './configStateLabels.ts';
import { addAttributeHref, pageHref, pollUrl, sortHref, type FleetRequest } from './fleetRequest.ts';
import { shortId } from './format.ts';
import type { SortKey } from './sortAgents.ts';

export interface Chip {
  readonly key: string;
  readonly value: string;
  readonly href: string;
}

export interface AgentRow {
  readonly uid: string;
  readonly shortId: string;
  readonly href: string;
  readonly name: string;
  readonly host: string;
  readonly version: string;
  readonly status: AgentStatus;
  readonly statusLabel: string;
  readonly chips: readonly Chip[];
  readonly moreChips: number;
  readonly via: string;
  readonly transport: string;
  readonly lastSeen: number;
  /** The config state badge; undefined for an agent no config targets (the cell stays empty). */
  readonly config: { readonly class: string; readonly label: string } | undefined;
}

/** Shown in their own columns, so not repeated as chips. */
const columnAttributes = new Set(['service.name', 'service.version', 'host.name']);
export const maxChips = 5;

export const agentHref = (uid: string): string => `/agents/${encodeURIComponent(uid)}`;

export function agentRow(agent: AgentState, req: FleetRequest, configState: ConfigState): AgentRow {
  const view = agentSummary(agent);
  const status = agentStatus(agent);
  const attributes = [
    ...Object.entries(view.identifying_attributes),
    ...Object.entries(view.non_identifying_attributes),
  ].filter(([key]) => !columnAttributes.has(key));
  return {
    uid: agent.uid,
    shortId: shortId(agent.uid),
    href: agentHref(agent.uid),
    name: view.display_name,
    host: view.host_name !== view.display_name ? view.host_name : '',
    version: view.version,
    status,
    statusLabel: statusLabels[status],
    chips: attributes
      .slice(0, maxChips)
      .map(([key, value]) => ({ key, value, href: addAttributeHref(req, key, value) })),
    moreChips: Math.max(0, attributes.length - maxChips),
    via: view.connection.via_gateway ? 'gateway' : 'direct',
    transport: view.connection.transport,
    lastSeen: agent.lastSeen,
    config: configState === 'unmanaged' ? undefined : configBadge(configState),
  };
}

const columnLabels: readonly [SortKey, string, string?][] = [
  ['status', 'Status'],
  ['name', 'Name'],
  ['version', 'Version'],
  ['via', 'Via'],
  ['transport', 'Transport'],
  ['last_seen', 'Last seen'],
  ['instance', 'Instance', 'hide-narrow'],
];

/** `withConfig` adds the (unsortable) Config column after Status. */
export function columns(req: FleetRequest, withConfig = false) {
  const cols = columnLabels.map(([key, label, cls]) => {
    const active = req.params.has('sort') ? req.sort.key === key : false;
    return {
      label,
      class: cls,
      href: sortHref(req, key),
      mark: active ? (req.sort.order === 'asc' ? '▲' : '▼') : '',
      ariaSort: active ? (req.sort.order === 'asc' ? 'ascending' : 'descending') : undefined,
    };
  });
  const plain = (label: string, cls?: string) => ({
    label,
    class: cls,
    href: '',
    mark: '',
    ariaSort: undefined,
  });
  // Attributes are not sortable; the column sits between version and via.
  return [
    ...cols.slice(0, 1),
    ...(withConfig ? [plain('Config')] : []),
    ...cols.slice(1, 3),
    plain('Attributes', 'hide-narrow'),
    ...cols.slice(3),
  ];
}

export interface FleetTable {
  readonly rows: AgentRow[];
  readonly total: number;
}

export function tableLocals(
  req: FleetRequest,
  table: FleetTable,
  partial: boolean,
  error: string | undefined,
  /** The filtered set was cut at the read path's limit (storedLists.ts): more agents match. */
  limited = false,
) {
  const { offset, limit } = req.page;
  const to = Math.min(offset + table.rows.length, table.total);
  const filtered = req.filter !== undefined && !req.filter.empty;
  // Only when remote config concerns this page: a fleet without configs gets no empty column.
  const withConfig = req.params.has('config_state') || table.rows.some((r) => r.config !== undefined);
  return {
    rows: table.rows,
    filtered,
    partial,
    limited,
    error,
    errorPoint: error === undefined ? undefined : req.errorPoint,
    withConfig,
    pollUrl: pollUrl(req),
    columns: columns(req, withConfig),
    range: {
      from: table.rows.length ? offset + 1 : 0,
      to,
      total: table.total,
      prevHref: offset > 0 ? pageHref(req, Math.max(0, offset - limit)) : '',
      nextHref: offset + limit < table.total ? pageHref(req, offset + limit) : '',
    },
    empty: emptyState(req, table.total, filtered, error),
  };
}

function emptyState(req: FleetRequest, total: number, filtered: boolean, error: string | undefined) {
  if (error !== undefined)
    return {
      title: 'Nothing to show',
      text: 'Fix the filter above to see agents.',
      href: '/',
      link: 'Clear all filters',
    };
  if (total > 0)
    return {
      title: 'No agents on this page',
      text: `The filtered fleet has ${total} ${total === 1 ? 'agent' : 'agents'}.`,
      href: pageHref(req, 0),
      link: 'Go to the first page',
    };
  if (filtered)
    return {
      title: 'No agents match these filters',
      text: 'Loosen or remove a filter to see more agents.',
      href: '/',
      link: 'Clear all filters',
    };
  return {
    title: 'No agents yet',
    text: 'Agents appear here as soon as they connect to the OpAMP endpoint (/v1/opamp) over WebSocket or HTTP.',
    href: '',
    link: '',
  };
}
