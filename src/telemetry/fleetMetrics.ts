// The fleet registry (/metrics/fleet, SPEC "Metrics"): counters read from the fleet counters and
// compliance counters projections, gauges computed from the live registry at scrape time
// (prom-client's collect()). Nothing here is kept by hand between scrapes.

import { Counter, Gauge, type Registry as PromRegistry } from 'prom-client';
import type { ComplianceCountersProjection } from '../projections/compliance/complianceCounters.ts';
import { reservedAttributeKeys } from '../projections/compliance/evaluateCompliance.ts';
import { reportTypes, type FleetCountersProjection } from '../projections/metrics/fleetCounters.ts';
import { connectedKeys, measureFleet, type FleetGauges } from '../projections/metrics/fleetGauges.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';
import type { AgentState } from '../projections/agent/agentState.ts';
import { configStateOf, configStates } from '../projections/remoteConfig/configState.ts';
import type { DesiredConfig } from '../projections/remoteConfig/desiredConfig.ts';
import { perScrape } from './perScrape.ts';

export interface FleetMetricsDeps {
  readonly register: PromRegistry;
  readonly agents: Registry;
  readonly counters: FleetCountersProjection;
  readonly compliance: ComplianceCountersProjection;
  readonly perAgentSeriesLimit: number;
  /** Known label values, exported at 0 before they first count. */
  readonly requiredAttributes: readonly string[];
  /** Each agent's desired remote config (svc_agents_config_state). */
  readonly desiredFor: (agent: AgentState) => DesiredConfig | undefined;
}

/** Sets a counter to the projection's value (collect() time; the projection is the source of truth). */
function setCounter<L extends string>(
  counter: Counter<L>,
  value: number,
  labels?: Partial<Record<L, string>>,
): void {
  if (labels === undefined) counter.inc(value);
  else counter.inc(labels, value);
}

function countsByKey(
  counter: Counter<'attribute'>,
  known: readonly string[],
  counts: ReadonlyMap<string, number>,
): void {
  counter.reset();
  for (const key of known) if (!counts.has(key)) counter.inc({ attribute: key }, 0);
  for (const [key, n] of counts) counter.inc({ attribute: key }, n);
}

export function registerFleetMetrics(deps: FleetMetricsDeps): void {
  registerFleetGauges(deps);
  registerFleetCounters(deps);
}

/** Gauges from the registry, one pass per scrape; svc_gateway_connections from the counters projection. */
function registerFleetGauges(deps: FleetMetricsDeps): void {
  const { agents, counters } = deps;
  const on = { registers: [deps.register] };

  const health = new Gauge({
    name: 'svc_agent_health',
    help: 'Agent health: 1 healthy, 0 unhealthy; omitted until health is reported.',
    labelNames: ['instance_uid'],
    ...on,
    collect: () => void gauges(),
  });
  const lastSeen = new Gauge({
    name: 'svc_agent_last_seen_timestamp_seconds',
    help: "Unix time of the agent's last check-in.",
    labelNames: ['instance_uid'],
    ...on,
    collect: () => void gauges(),
  });

  // One registry pass per scrape, shared by every gauge below (and the per-agent series above).
  const gauges = perScrape((): FleetGauges => {
    health.reset();
    lastSeen.reset();
    return measureFleet(
      agents.values(),
      agents.size,
      deps.perAgentSeriesLimit,
      (agent) => {
        const instance_uid = agent.uid as string;
        if (agent.health !== null) health.set({ instance_uid }, agent.health.healthy ? 1 : 0);
        lastSeen.set({ instance_uid }, agent.lastSeen / 1000);
      },
      (agent) => configStateOf(agent, deps.desiredFor(agent)),
    );
  });

  const gauge = (name: string, help: string, read: (g: FleetGauges) => number) =>
    new Gauge({
      name,
      help,
      ...on,
      collect() {
        this.set(read(gauges()));
      },
    });

  new Gauge({
    name: 'svc_agents_connected',
    help: 'Connected agents by transport and route.',
    labelNames: ['transport', 'via'],
    ...on,
    collect() {
      const g = gauges();
      for (const { key, transport, via } of connectedKeys) this.set({ transport, via }, g.connected[key]);
    },
  });
  gauge(
    'svc_agents_disconnected',
    'Agents retained in the registry, not connected, not evicted.',
    (g) => g.disconnected,
  );
  gauge(
    'svc_agents_awaiting_full_state',
    'Agents registered without a description.',
    (g) => g.awaitingFullState,
  );
  gauge('svc_agents_noncompliant', 'Agents missing at least one required attribute.', (g) => g.noncompliant);
  gauge(
    'svc_agents_supervisor_managed',
    'Agents declaring opamp.managed_by = opentelemetry-opampsupervisor; reliable when true, not when false.',
    (g) => g.supervisorManaged,
  );
  gauge('svc_fleet_size', 'Total registered agents.', (g) => g.size);
  gauge(
    'svc_agent_series_capped',
    '1 if per-agent series are omitted because of metrics.per_agent_series_limit, else 0.',
    (g) => (g.capped ? 1 : 0),
  );
  new Gauge({
    name: 'svc_agents_config_state',
    help: 'Agents by where they stand with their remote config (unmanaged, unsupported, pending, applying, applied, failed).',
    labelNames: ['state'],
    ...on,
    collect() {
      const g = gauges();
      for (const state of configStates) this.set({ state }, g.configStates[state]);
    },
  });
  new Gauge({
    name: 'svc_gateway_connections',
    help: 'Open connections that sent an accepted gateway connect message.',
    ...on,
    collect() {
      this.set(counters.current().gatewayConnections);
    },
  });
}

/** Counters: the projections are the source of truth, copied into prom-client at collect() time. */
function registerFleetCounters(deps: FleetMetricsDeps): void {
  const { counters, compliance } = deps;
  const on = { registers: [deps.register] };
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      ...on,
      collect() {
        this.reset();
        setCounter(this, read());
      },
    });
  counter(
    'svc_agents_evicted_total',
    'Evictions after the missed check-in threshold.',
    () => counters.current().evicted,
  );
  counter('svc_agent_connects_total', 'Agent connect transitions.', () => counters.current().connects);
  counter(
    'svc_remote_configs_sent_total',
    'Remote configs sent to agents, in replies and pushes.',
    () => counters.current().remoteConfigsSent,
  );
  counter(
    'svc_remote_config_rejected_total',
    'Config sources refused (for example a file of remote_config.dir that does not parse).',
    () => counters.current().remoteConfigsRejected,
  );
  counter(
    'svc_agent_disconnects_total',
    'Agent disconnect transitions.',
    () => counters.current().disconnects,
  );
  new Counter({
    name: 'svc_gateway_connects_total',
    help: 'Gateway connect answers by result.',
    labelNames: ['result'],
    ...on,
    collect() {
      this.reset();
      const { accepted, rejected } = counters.current().gatewayConnects;
      setCounter(this, accepted, { result: 'accepted' });
      setCounter(this, rejected, { result: 'rejected' });
    },
  });
  new Counter({
    name: 'svc_agent_reports_total',
    help: 'Reports received by type.',
    labelNames: ['type'],
    ...on,
    collect() {
      this.reset();
      const { reports } = counters.current();
      for (const type of reportTypes) setCounter(this, reports[type], { type });
    },
  });
  new Counter({
    name: 'svc_agent_missing_attributes_total',
    help: 'Times a required attribute went missing (on compliance change).',
    labelNames: ['attribute'],
    ...on,
    collect() {
      countsByKey(this, deps.requiredAttributes, compliance.current().missing);
    },
  });
  new Counter({
    name: 'svc_agent_reserved_attribute_conflicts_total',
    help: 'Times an agent attribute collided with a reserved filter key.',
    labelNames: ['attribute'],
    ...on,
    collect() {
      countsByKey(this, reservedAttributeKeys, compliance.current().conflicts);
    },
  });
}
