// What the load agents of the throughput scenario send, pre-encoded per agent so the load generator
// spends little CPU on the two cores it shares with the server.
//
// - `realistic`: after a full first report, a repeating cycle of a health change, a 1 KiB
//   effective-config change, a health change back and a description change (the collector's OpAMP
//   extension reports component health per pipeline, so health carries a small component map).
// - `thin`: after the same first report, a check-in with a health report whose healthy flag
//   alternates (the scenario's earlier traffic: cheap deltas only).
// Every message carries instance_uid, sequence_num (in order) and capabilities, as opamp-go sends.

import { randomUUID } from 'node:crypto';
import {
  boolField,
  bytesField,
  concat,
  fixed64Field,
  messageField,
  varint,
  varintField,
  type Part,
} from './protoWriter.ts';

export type StatusMix = 'realistic' | 'thin';

/** ReportsStatus | ReportsEffectiveConfig | ReportsHealth | ReportsHeartbeat. */
const capabilities = 0x1 | 0x4 | 0x800 | 0x2000;
const startNanos = 1_780_000_000_000_000_000n;

const keyValue = (key: string, value: string): Part =>
  concat(bytesField(1, key), messageField(2, bytesField(1, value)));

function health(healthy: boolean, status: string, lastError: string, components: Part[] = []): Part {
  return concat(
    boolField(1, healthy),
    fixed64Field(2, startNanos),
    ...(lastError ? [bytesField(3, lastError)] : []),
    bytesField(4, status),
    fixed64Field(5, startNanos + 60_000_000_000n),
    ...components,
  );
}

/** component_health_map entry (field 6): {key, value}. */
const component = (name: string, body: Part): Part =>
  messageField(6, bytesField(1, name), messageField(2, body));

function pipelineHealth(failing: boolean): Part[] {
  const ok = (name: string) => component(name, health(true, 'StatusOK', ''));
  const exporter = failing
    ? component(
        'exporter:otlphttp',
        health(false, 'StatusRecoverableError', 'Post "https://collector.example:4318": connection refused'),
      )
    : ok('exporter:otlphttp');
  const pipeline = (name: string) =>
    component(
      name,
      health(!failing, failing ? 'StatusRecoverableError' : 'StatusOK', '', [
        ok('receiver:otlp'),
        ok('processor:batch'),
        exporter,
      ]),
    );
  return [pipeline('pipeline:traces'), pipeline('pipeline:metrics')];
}

const healthParts = [false, true].map((healthy) =>
  messageField(
    5,
    health(
      healthy,
      healthy ? 'StatusOK' : 'StatusRecoverableError',
      healthy ? '' : 'exporter otlphttp: connection refused',
      pipelineHealth(!healthy),
    ),
  ),
);

/** The thin mix's health: the healthy flag and a status, nothing else. */
const thinHealthParts = [false, true].map((healthy) =>
  messageField(5, boolField(1, healthy), bytesField(4, healthy ? 'StatusOK' : 'StatusRecoverableError')),
);

/** A 1 KiB YAML effective config; `variant` changes one line, as a config roll-out would. */
function configPart(variant: number): Part {
  const head = `receivers:\n  otlp:\n    protocols: { grpc: {}, http: {} }\nprocessors:\n  batch:\n    send_batch_size: ${8192 + variant}\nexporters:\n  otlphttp:\n    endpoint: https://collector.example:4318\nservice:\n  pipelines:\n    traces: { receivers: [otlp], processors: [batch], exporters: [otlphttp] }\n# `;
  const body = head + 'x'.repeat(1024 - head.length);
  const file = concat(bytesField(1, body), bytesField(2, 'text/yaml'));
  return messageField(
    6,
    messageField(1, messageField(1, bytesField(1, 'collector.yaml'), messageField(2, file))),
  );
}
const configParts = [configPart(0), configPart(1)];

function descriptionPart(index: number, uid: string, variant: number): Part {
  const services = ['io.opentelemetry.collector', 'checkout', 'payments', 'inventory', 'frontend'];
  const identifying = [
    keyValue('service.name', services[index % services.length]!),
    keyValue('service.version', `0.${120 + variant}.0`),
    keyValue('service.instance.id', uid),
  ];
  const nonIdentifying = [
    keyValue('host.name', `load-host-${index}`),
    keyValue('os.type', 'linux'),
    keyValue('host.arch', index % 4 === 0 ? 'arm64' : 'amd64'),
    keyValue('deployment.environment', ['production', 'staging'][index % 2]!),
    keyValue('cloud.region', ['eu-west-1', 'us-east-1', 'ap-southeast-2'][index % 3]!),
    keyValue('team', ['platform', 'payments', 'growth'][index % 3]!),
    keyValue('k8s.cluster.name', `cluster-${index % 5}`),
  ];
  return messageField(
    3,
    ...identifying.map((kv) => messageField(1, kv)),
    ...nonIdentifying.map((kv) => messageField(2, kv)),
  );
}

export interface LoadAgent {
  readonly uid: string;
  /** The first report: description, health and effective config (registers the agent fully). */
  first(): Buffer;
  /** The next message of the mix, with the next sequence number. */
  next(): Buffer;
  /** A bare check-in (instance_uid, sequence_num, capabilities) with the next sequence number. */
  heartbeat(): Buffer;
}

export interface LoadAgentOptions {
  /**
   * Keep the agent's two encoded descriptions (the default: cheapest per message). Fleets of 100,000
   * agents that each send a few messages encode them when sent instead.
   */
  readonly keepDescriptions?: boolean;
}

export function createLoadAgent(index: number, mix: StatusMix, options: LoadAgentOptions = {}): LoadAgent {
  const uid = randomUUID();
  const uidBytes = Buffer.from(uid.replaceAll('-', ''), 'hex');
  const uidField = bytesField(1, uidBytes);
  const capabilitiesField = varintField(4, capabilities);
  const kept =
    options.keepDescriptions === false ? undefined : [0, 1].map((v) => descriptionPart(index, uid, v));
  const description = (variant: number): Part => kept?.[variant] ?? descriptionPart(index, uid, variant);
  let seq = 0;
  /** Messages sent by next(): the position in the mix's cycle (heartbeats do not move it). */
  let changes = 0;
  const message = (...parts: Part[]) =>
    concat(uidField, Uint8Array.from([0x10, ...varint(seq++)]), capabilitiesField, ...parts);
  // After the first report (config 0, description 0, healthy) every change moves to the other variant.
  const realistic = (n: number): Part => {
    const variant = (Math.floor((n - 1) / 4) + 1) % 2;
    switch (n % 4) {
      case 1:
        return healthParts[0]!;
      case 2:
        return configParts[variant]!;
      case 3:
        return healthParts[1]!;
      default:
        return description(variant);
    }
  };
  return {
    uid,
    first: () => message(description(0), healthParts[1]!, configParts[0]!),
    next: () => {
      const n = ++changes;
      return message(mix === 'realistic' ? realistic(n) : thinHealthParts[n % 2]!);
    },
    heartbeat: () => message(),
  };
}
