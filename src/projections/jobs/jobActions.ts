// The actions a job can take and their action_config (docs/jobs.md "Actions"). SPEC keeps `action`
// free-form: an unknown action is recorded, and arming it is refused naming the known ones. Pure;
// errors are messages for a 400.

import { parseDuration } from '../units/duration.ts';
import { parseAmount, type Amount } from './amount.ts';

/** How each action behaves wherever the service treats actions differently; one row per action. */
export interface ActionBehaviour {
  /** How the pages name it. */
  readonly label: string;
  /** Its targets take a config revision: it rolls back, is promoted, holds its config. */
  readonly rollsOut: boolean;
}

export const jobActionTable = {
  restart: { label: 'Restart', rollsOut: false },
  config_rollout: { label: 'Config rollout', rollsOut: true },
} as const satisfies Record<string, ActionBehaviour>;

export type KnownAction = keyof typeof jobActionTable;
export const knownActions = Object.keys(jobActionTable) as readonly KnownAction[];

/** The behaviour of a recorded action, or undefined for one this service does not know. */
export const actionBehaviour = (action: string): ActionBehaviour | undefined =>
  isKnownAction(action) ? jobActionTable[action] : undefined;

/** Whether the job rolls a config revision out (rollback and promote are offered only then). */
export const rollsOut = (action: string): boolean => actionBehaviour(action)?.rollsOut ?? false;

export interface RestartSettings {
  readonly action: 'restart';
  /** A target must come back within this after the command was sent. */
  readonly reconnectTimeoutMs: number;
  /** The largest batch of restarts in flight at once (batches grow 1, 2, 4, … up to it). */
  readonly batchSize: Amount;
  /** The longest wait between batches (waits grow 1 s, 2 s, 4 s, … up to it); 0: no wait. */
  readonly backoffCapMs: number;
}

export interface Gates {
  /** Always set: 0 (any failure pauses) unless the rollout names it. */
  readonly maxFailed: Amount;
  readonly maxUnhealthy?: Amount;
  readonly maxDisconnected?: Amount;
}

export interface RolloutSettings {
  readonly action: 'config_rollout';
  readonly config: string;
  /** The draft revision rolled out. */
  readonly revision: number;
  /** Cumulative stages; the last reaches every target. */
  readonly stages: readonly Amount[];
  /** Pause between stages, once every target of a stage has finished. */
  readonly waitMs: number;
  readonly gates: Gates;
  /** A target that disconnects within this after receiving the revision counts as lost. */
  readonly disconnectWindowMs: number;
  /** A target that has not applied the revision within this fails. */
  readonly applyTimeoutMs: number;
}

export type ActionSettings = RestartSettings | RolloutSettings;
export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

type Fields = Readonly<Record<string, unknown>>;

export function isKnownAction(action: string): action is KnownAction {
  return Object.hasOwn(jobActionTable, action);
}

function duration(fields: Fields, key: string, fallback: string): Checked<number> {
  const value = fields[key] ?? fallback;
  const ms =
    typeof value === 'string' ? parseDuration(value) : typeof value === 'number' ? value * 1000 : undefined;
  return ms === undefined || ms < 0
    ? { ok: false, error: `action_config.${key} must be a duration such as 30s or 2m` }
    : { ok: true, value: ms };
}

/**
 * A rollout's disconnect window from its action_config's `disconnect_window` value alone (2m when
 * absent; 0 when it does not parse, as for settings that do not): what each replica needs of every
 * target in flight, without parsing the whole action_config once per target.
 */
export function disconnectWindowMs(value: unknown): number {
  const window = duration({ disconnect_window: value }, 'disconnect_window', '2m');
  return window.ok ? window.value : 0;
}

function amount(fields: Fields, key: string, fallback?: unknown): Checked<Amount | undefined> {
  const value = fields[key] ?? fallback;
  if (value === undefined) return { ok: true, value: undefined };
  const parsed = parseAmount(value);
  return parsed === undefined
    ? { ok: false, error: `action_config.${key} must be a count (25) or a percentage ("10%")` }
    : { ok: true, value: parsed };
}

const unknownKeys = (fields: Fields, known: readonly string[]): Checked<undefined> => {
  const extra = Object.keys(fields).filter((k) => !known.includes(k));
  return extra.length === 0
    ? { ok: true, value: undefined }
    : { ok: false, error: `action_config has unknown key(s) ${extra.join(', ')}` };
};

/**
 * backoff_cap is a duration ("10m", as SPEC's seed writes it): the longest wait between batches.
 * Jobs recorded before batch_size existed carry the batch size there instead (a count or "25%");
 * they keep running as they were armed: batches up to that size, no wait between them.
 */
function restartPacing(fields: Fields): Checked<{ batchSize: Amount; backoffCapMs: number }> {
  const legacy = parseAmount(fields.backoff_cap);
  if (legacy !== undefined) {
    if (fields.batch_size !== undefined)
      return { ok: false, error: `${capError}; the batch size goes in batch_size` };
    return atLeastOne(legacy, 'backoff_cap') ?? { ok: true, value: { batchSize: legacy, backoffCapMs: 0 } };
  }
  const size = amount(fields, 'batch_size', 10);
  if (!size.ok) return size;
  const refused = atLeastOne(size.value!, 'batch_size');
  if (refused !== undefined) return refused;
  const wait = duration(fields, 'backoff_cap', '1m');
  if (!wait.ok) return { ok: false, error: capError };
  return { ok: true, value: { batchSize: size.value!, backoffCapMs: wait.value } };
}

const capError =
  'action_config.backoff_cap must be a duration such as 10m (the longest wait between restart batches)';

const atLeastOne = (size: Amount, key: string): { ok: false; error: string } | undefined =>
  'count' in size && size.count === 0
    ? { ok: false, error: `action_config.${key} must let at least one restart through` }
    : undefined;

function restart(fields: Fields): Checked<RestartSettings> {
  const known = unknownKeys(fields, ['reconnect_timeout', 'backoff_cap', 'batch_size']);
  if (!known.ok) return known;
  const timeout = duration(fields, 'reconnect_timeout', '2m');
  if (!timeout.ok) return timeout;
  const pacing = restartPacing(fields);
  if (!pacing.ok) return pacing;
  return { ok: true, value: { action: 'restart', reconnectTimeoutMs: timeout.value, ...pacing.value } };
}

function stagesOf(value: unknown): Checked<Amount[]> {
  const list = value ?? ['100%'];
  if (!Array.isArray(list) || list.length === 0)
    return { ok: false, error: 'action_config.stages must be a list such as [1, "10%", "50%", "100%"]' };
  const stages: Amount[] = [];
  for (const item of list) {
    const parsed = parseAmount(item);
    if (parsed === undefined)
      return { ok: false, error: 'action_config.stages holds counts (25) or percentages ("10%")' };
    stages.push(parsed);
  }
  const last = stages.at(-1)!;
  if (!('percent' in last && last.percent === 100))
    return {
      ok: false,
      error: 'the last of action_config.stages must be "100%", so every target is reached',
    };
  return { ok: true, value: stages };
}

function rollout(fields: Fields): Checked<RolloutSettings> {
  const known = unknownKeys(fields, [
    'config',
    'revision',
    'stages',
    'wait',
    'gates',
    'disconnect_window',
    'apply_timeout',
  ]);
  if (!known.ok) return known;
  const { config, revision } = fields;
  if (typeof config !== 'string' || config === '')
    return { ok: false, error: 'action_config.config must name the config to roll out' };
  if (!Number.isSafeInteger(revision) || (revision as number) <= 0)
    return { ok: false, error: 'action_config.revision must be the draft revision to roll out' };
  const stages = stagesOf(fields.stages);
  if (!stages.ok) return stages;
  const wait = duration(fields, 'wait', '0s');
  if (!wait.ok) return wait;
  const window = duration(fields, 'disconnect_window', '2m');
  if (!window.ok) return window;
  const applyTimeout = duration(fields, 'apply_timeout', '10m');
  if (!applyTimeout.ok) return applyTimeout;
  const gateFields = (fields.gates ?? {}) as Fields;
  if (typeof gateFields !== 'object' || gateFields === null || Array.isArray(gateFields))
    return { ok: false, error: 'action_config.gates must be an object' };
  const knownGates = unknownKeys(gateFields, ['max_failed', 'max_unhealthy', 'max_disconnected']);
  if (!knownGates.ok)
    return { ok: false, error: knownGates.error.replace('action_config', 'action_config.gates') };
  // Every rollout has a failure gate (docs/jobs.md "Gates"): any failure pauses unless asked otherwise.
  const gates: { maxFailed: Amount; maxUnhealthy?: Amount; maxDisconnected?: Amount } = {
    maxFailed: { count: 0 },
  };
  for (const [key, name] of [
    ['max_failed', 'maxFailed'],
    ['max_unhealthy', 'maxUnhealthy'],
    ['max_disconnected', 'maxDisconnected'],
  ] as const) {
    const a = amount(gateFields, key);
    if (!a.ok) return { ok: false, error: a.error.replace('action_config', 'action_config.gates') };
    if (a.value !== undefined) gates[name] = a.value;
  }
  return {
    ok: true,
    value: {
      action: 'config_rollout',
      config,
      revision: revision as number,
      stages: stages.value,
      waitMs: wait.value,
      gates,
      disconnectWindowMs: window.value,
      applyTimeoutMs: applyTimeout.value,
    },
  };
}

/** The settings of a known action, or why they cannot be used (also for an unknown action). */
export function parseActionSettings(action: string, config: Fields): Checked<ActionSettings> {
  if (!isKnownAction(action))
    return {
      ok: false,
      error: `action ${JSON.stringify(action)} is not one this service knows (${knownActions.join(', ')})`,
    };
  return settingsParsers[action](config);
}

const settingsParsers: { readonly [A in KnownAction]: (config: Fields) => Checked<ActionSettings> } = {
  restart,
  config_rollout: rollout,
};
