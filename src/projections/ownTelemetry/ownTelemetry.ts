// Where agents send their own telemetry (issue 24 item 6; docs/own-telemetry.md): the `own_telemetry`
// configuration, a list of `{selector, metrics?, logs?, traces?}`, decides per agent and per signal
// which OTLP/HTTP destination is offered in connection_settings.own_metrics / own_logs / own_traces.
// For each signal the first entry that names it and whose selector matches the agent wins, and a
// signal is offered only to an agent that declares it reports it (ReportsOwnMetrics, …). Pure.
//
// The offer's hash is SHA-256 over a canonical encoding of exactly what is offered (signals in a fixed
// order, headers sorted by name), so it is the same on every replica and across restarts, and it
// changes exactly when what an agent is offered changes.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AgentState } from '../agent/agentState.ts';
import { parseSelector, selects, type Selector } from '../filter/selector.ts';

export type TelemetrySignal = 'metrics' | 'logs' | 'traces';
export const telemetrySignals: readonly TelemetrySignal[] = ['metrics', 'logs', 'traces'];

/** AgentCapabilities_ReportsOwnMetrics, _ReportsOwnLogs, _ReportsOwnTraces (OPAMP.md). */
export const reportsOwn: Readonly<Record<TelemetrySignal, bigint>> = {
  metrics: 0x40n,
  logs: 0x80n,
  traces: 0x20n,
};

/** One signal's destination as configured. */
export interface TelemetryDestinationConfig {
  /** OTLP/HTTP URL, e.g. `https://otlp.example:4318/v1/metrics`. */
  readonly endpoint: string;
  /** Sent with every export (e.g. an API key); values are secrets and never shown. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One entry of `own_telemetry` as configured. */
export interface OwnTelemetryEntry {
  readonly selector: string;
  readonly metrics?: TelemetryDestinationConfig;
  readonly logs?: TelemetryDestinationConfig;
  readonly traces?: TelemetryDestinationConfig;
}

/** A destination as offered: headers in name order. */
export interface TelemetryDestination {
  readonly endpoint: string;
  readonly headers: readonly { readonly key: string; readonly value: string }[];
}

/** What one agent is offered: at least one signal, and the hash over exactly these. */
export interface OwnTelemetryOffer {
  /** Lowercase hex SHA-256 (connection_settings.hash). */
  readonly hash: string;
  readonly signals: readonly TelemetrySignal[];
  readonly metrics?: TelemetryDestination;
  readonly logs?: TelemetryDestination;
  readonly traces?: TelemetryDestination;
}

interface Rule {
  readonly selector: Selector;
  readonly destinations: Partial<Record<TelemetrySignal, TelemetryDestination>>;
}

/** An agent's offer, or undefined when nothing matches it or it reports none of the matched signals. */
export type OwnTelemetryFor = (agent: AgentState) => OwnTelemetryOffer | undefined;

function destination(config: TelemetryDestinationConfig): TelemetryDestination {
  const headers = Object.keys(config.headers ?? {})
    .sort()
    .map((key) => ({ key, value: config.headers![key]! }));
  return { endpoint: config.endpoint, headers };
}

function offerOf(parts: Partial<Record<TelemetrySignal, TelemetryDestination>>): OwnTelemetryOffer {
  const signals = telemetrySignals.filter((s) => parts[s] !== undefined);
  // JSON of arrays only: no key order to depend on.
  const canonical = JSON.stringify(
    signals.map((s) => [s, parts[s]!.endpoint, parts[s]!.headers.map((h) => [h.key, h.value])]),
  );
  return { hash: bytesToHex(sha256(utf8ToBytes(canonical))), signals, ...parts };
}

/**
 * Compiles the configured entries (selectors already checked by the configuration schema; one that
 * does not parse here matches nothing). Offers are made once per combination of matching entries, so
 * deciding per message allocates nothing.
 */
export function compileOwnTelemetry(entries: readonly OwnTelemetryEntry[]): OwnTelemetryFor | undefined {
  if (entries.length === 0) return undefined;
  const rules: Rule[] = entries.map((entry) => {
    const parsed = parseSelector(entry.selector);
    const destinations: Partial<Record<TelemetrySignal, TelemetryDestination>> = {};
    for (const s of telemetrySignals) {
      const d = entry[s];
      if (d !== undefined) destinations[s] = destination(d);
    }
    return {
      selector: parsed.ok ? parsed.value : { text: entry.selector, matchers: [], filter: null },
      destinations,
    };
  });
  const offers = new Map<string, OwnTelemetryOffer>();
  return (agent) => {
    if (agent.description === null) return undefined;
    const chosen = [-1, -1, -1];
    for (let i = 0; i < telemetrySignals.length; i++) {
      const signal = telemetrySignals[i]!;
      if ((agent.capabilities & reportsOwn[signal]) === 0n) continue;
      chosen[i] = rules.findIndex((r) => r.destinations[signal] !== undefined && selects(r.selector, agent));
    }
    if (chosen.every((c) => c < 0)) return undefined;
    const key = chosen.join(',');
    let offer = offers.get(key);
    if (offer === undefined) {
      const parts: Partial<Record<TelemetrySignal, TelemetryDestination>> = {};
      chosen.forEach((c, i) => {
        const signal = telemetrySignals[i]!;
        if (c >= 0) parts[signal] = rules[c]!.destinations[signal]!;
      });
      offer = offerOf(parts);
      offers.set(key, offer);
    }
    return offer;
  };
}
