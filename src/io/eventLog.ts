// Logs what happens to the fleet, from the bus: connection lifecycle at debug, evictions at info,
// compliance problems and rejected gateway connects at warn. Only ids, reasons and attribute keys are
// logged: never attribute values, effective configs or anything secret. What an agent causes (its
// connects, compliance changes, config statuses) goes through the agent's log budget (agentLog.ts),
// and the error text it reports is cut.

import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../events/fleetEvent.ts';
import { createAgentLog, type AgentLog } from './agentLog.ts';
import type { Logger } from './logger.ts';

export interface EventLog {
  stop(): void;
}

export function logEvent(logger: Logger, event: FleetEvent, agentLog: AgentLog): void {
  switch (event.type) {
    case 'AgentConnected': {
      const { uid, session } = event.data;
      agentLog.write(
        'debug',
        uid,
        { uid, transport: session.transport, viaGateway: session.viaGateway },
        'agent connected',
      );
      return;
    }
    case 'AgentDisconnected':
      agentLog.write(
        'debug',
        event.data.uid,
        { uid: event.data.uid, reason: event.data.reason },
        'agent disconnected',
      );
      return;
    case 'AgentEvicted':
      logger.info(
        { uid: event.data.uid, lastSeen: new Date(event.data.lastSeen).toISOString() },
        'agent evicted',
      );
      return;
    case 'AgentComplianceChanged': {
      const { uid, missing, conflicts } = event.data;
      if (missing.length > 0 || conflicts.length > 0)
        agentLog.write('warn', uid, { uid, missing, conflicts }, 'agent attributes not compliant');
      else agentLog.write('info', uid, { uid }, 'agent attributes compliant');
      return;
    }
    case 'AgentFullStateRequested':
      agentLog.write(
        'debug',
        event.data.uid,
        { uid: event.data.uid, reason: event.data.reason },
        'full state requested',
      );
      return;
    case 'GatewayConnectAnswered':
      if (event.data.accepted)
        logger.debug({ connectionId: event.data.connectionId }, 'gateway connect accepted');
      else logger.warn({ connectionId: event.data.connectionId }, 'gateway connect rejected');
      return;
    case 'GatewayConnectionClosed':
      logger.debug({ connectionId: event.data.connectionId }, 'gateway connection closed');
      return;
    case 'AgentsSoftDeleted':
      logger.debug({ agents: event.data.uids.length }, 'evicted agents soft-deleted');
      return;
    case 'AgentRemoteConfigReported': {
      const { uid, status } = event.data;
      if (status.status === 'failed')
        agentLog.write(
          'warn',
          uid,
          { instance_uid: uid, hash: status.hash, error: agentLog.text(status.errorMessage) },
          'agent failed to apply its remote config',
        );
      else
        agentLog.write(
          'debug',
          uid,
          { instance_uid: uid, hash: status.hash, status: status.status },
          'agent reported its remote config',
        );
      return;
    }
    case 'AgentRemoteConfigOffered':
      logger.debug({ instance_uid: event.data.uid, hash: event.data.hash }, 'remote config sent');
      return;
    case 'RemoteConfigChanged': {
      const { name, revision, enabled } = event.data.config;
      logger.info({ config: name, revision, enabled }, 'remote config in force');
      return;
    }
    case 'JobGateTripped':
      logger.warn(
        { job: event.data.jobId, gate: event.data.gate },
        'rollout gate tripped; the job is paused',
      );
      return;
    case 'AgentCommandSent':
      logger.info({ instance_uid: event.data.uid, command: event.data.command }, 'command sent to agent');
      return;
    case 'RemoteConfigPinned':
      logger.info(
        {
          config: event.data.name,
          revision: event.data.config?.revision ?? null,
          agents: event.data.uids.length,
        },
        'remote config pinned for a rollout',
      );
      return;
    case 'RemoteConfigRemoved':
      logger.info({ config: event.data.name }, 'remote config removed');
      return;
    case 'RemoteConfigRejected':
      logger.error(
        { config: event.data.name, source: event.data.source, error: event.data.error },
        'remote config rejected; the last good version stays in force',
      );
      return;
    case 'AgentCredentialRevoked':
      logger.warn(
        { instance_uid: event.data.uid, actor: event.data.revokedBy },
        'agent credentials revoked; its connection is closed',
      );
      return;
    case 'AgentCheckedIn':
    case 'AgentStatusReported':
    case 'AgentHealthReported':
    case 'AgentEffectiveConfigReported':
    case 'AgentPackageStatusesReported':
    case 'AgentAvailableComponentsReported':
    case 'AgentConnectionSettingsReported':
    case 'AgentOwnTelemetryOffered':
      return;
    default: {
      const _exhaustive: never = event;
      return;
    }
  }
}

/**
 * Subscribes the log to the bus. A logging failure is reported once per event and never ends the
 * stream. `agentLog`: the per-agent budgets, shared with the other writers of agent-caused lines.
 */
export function createEventLog(
  events$: Observable<FleetEvent>,
  logger: Logger,
  agentLog: AgentLog = createAgentLog(logger, { now: Date.now }),
): EventLog {
  const subscription: Subscription = events$.subscribe((event) => {
    try {
      logEvent(logger, event, agentLog);
    } catch (error) {
      logger.error({ err: error, event: event.type }, 'event log failed');
    }
  });
  return { stop: () => subscription.unsubscribe() };
}
