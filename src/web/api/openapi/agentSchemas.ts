// Schemas of the agent views (src/web/views/agentView.ts, docs/api.md "Agent views").

import { configStates } from '../../../projections/remoteConfig/configState.ts';
import { capabilityFlags } from '../../views/capabilityFlags.ts';
import {
  arrayOf,
  bool,
  int,
  mapOf,
  nullable,
  object,
  oneOfValues,
  ref,
  str,
  time,
  type Schema,
} from './jsonSchema.ts';
import { shownBody } from './configSchemas.ts';

const flagNames = Object.keys(capabilityFlags(0n));

const summaryFields: Record<string, Schema> = {
  instance_uid: str('Canonical lowercase UUID, or the ULID of a legacy agent'),
  display_name: str('service.name, else host.name, else the instance UID'),
  host_name: str(),
  version: str(),
  sequence_num: { ...int(), description: 'Unsigned 64-bit integer, exact' },
  identifying_attributes: mapOf(str()),
  non_identifying_attributes: mapOf(str()),
  capabilities: { ...int(), description: 'The raw AgentCapabilities bitmask, an exact JSON number' },
  capability_flags: object(Object.fromEntries(flagNames.map((f) => [f, bool]))),
  healthy: bool,
  health_error: str(),
  health_status: str(),
  health_start_time: nullable(time),
  health_status_time: nullable(time),
  health_reported: bool,
  description_reported: bool,
  connected: bool,
  connection: object({
    transport: oneOfValues(['ws', 'http']),
    via_gateway: bool,
    remote_addr: str(),
    tls_subject: nullable(str()),
  }),
  first_seen: nullable(time),
  last_seen: nullable(time),
  missing_attributes: arrayOf(str()),
  reserved_attribute_conflicts: arrayOf(str()),
  compliance_updated_at: nullable(time),
  supervisor_managed: bool,
  config_state: ref('ConfigState'),
};

export const agentSchemas: Record<string, Schema> = {
  ConfigState: oneOfValues(configStates),
  AgentSummary: object(summaryFields),
  AgentPage: object({
    agents: arrayOf(ref('AgentSummary')),
    total: int(),
    limit: int(1),
    offset: int(),
    partial: { ...bool, description: 'True when the store could not be read: this replica’s agents only' },
  }),
  ComponentHealth: object({
    healthy: bool,
    status: str(),
    last_error: str(),
    start_time: nullable(time),
    status_time: nullable(time),
    components: mapOf(ref('ComponentHealth')),
  }),
  AgentDetail: object(
    {
      ...summaryFields,
      effective_config: { ...mapOf(str()), description: `File name → body. ${shownBody}` },
      packages: arrayOf(
        object({
          name: str(),
          status: str(),
          agent_has_version: str(),
          agent_has_hash: str(),
          server_offered_version: str(),
          server_offered_hash: str(),
          error_message: str(),
          download_percent: nullable({ type: 'number' }),
          download_bytes_per_second: nullable({ type: 'number' }),
        }),
      ),
      packages_hash: str(),
      packages_error: str(),
      health: nullable(ref('ComponentHealth')),
      remote_config: object({
        config_state: ref('ConfigState'),
        desired_hash: nullable(str()),
        desired_configs: arrayOf(object({ name: str(), revision: int(1) })),
        reported_hash: str(),
        status: nullable(str()),
        error_message: str(),
        keeps_last_applied: bool,
        rolled_back_from: nullable(str('The hash the agent took and went back from; not offered again')),
        missing_components: {
          ...mapOf(arrayOf(str())),
          description:
            'When config_state is incompatible: kind (receivers, exporters, …) → the types the desired config names that the agent lacks; else empty',
        },
      }),
      available_components: {
        ...nullable(
          object({
            hash: str(),
            components: {
              ...mapOf(arrayOf(str())),
              description: 'Kind (receivers, exporters, …) → type names',
            },
          }),
        ),
        description:
          'What the agent can run; null until reported; empty components while only the hash is known',
      },
      connection_settings: {
        ...object({
          status: {
            ...nullable(
              object({
                hash: str(),
                status: oneOfValues(['unset', 'applied', 'applying', 'failed']),
                error_message: str(),
              }),
            ),
            description: 'connection_settings_status as the agent last reported it; null until it does',
          },
          offered_hash: nullable(str('Own-telemetry offer sent on the agent’s current connection')),
          failed_hash: nullable(str('Offer hash the agent reported FAILED for; not offered again')),
        }),
        description: 'Own-telemetry connection settings (docs/own-telemetry.md); kept in memory only',
      },
      credential: {
        ...nullable(ref('AgentCredential')),
        description:
          'What the agent authenticated with; null when it never presented a credential; absent when the credential store could not be read',
      },
    },
    ['credential'],
  ),
  AgentCredential: object({
    kind: nullable(oneOfValues(['token', 'certificate', 'agent_certificate'])),
    name: nullable(str('Token name, or the certificate’s SPIFFE id or subject; never a token')),
    serial: nullable(str()),
    bound_at: nullable(time),
    revoked_at: nullable(time),
    revoked_by: nullable(str()),
    certificates: arrayOf(
      object({
        serial: str(),
        not_before: nullable(time),
        not_after: nullable(time),
        issued_at: nullable(time),
        issued_by: str(),
        revoked_at: nullable(time),
        issued_to: nullable(
          str('The credential it was issued to (kind:name): the only holder that may move to it'),
        ),
        selector: nullable(str('The enrolling token’s selector, applied to its connections')),
        gateway: bool,
      }),
    ),
  }),
  Status: object({
    version: str(),
    commit: str(),
    go_version: str('The runtime version (Node.js)'),
    started_at: nullable(time),
    uptime_seconds: int(),
    fleet: object({
      total: int(),
      connected: int(),
      disconnected: int(),
      healthy: int(),
      unhealthy: int(),
      health_unknown: int(),
      awaiting_full_state: int(),
    }),
    agent_authentication: object({
      required: {
        ...bool,
        description: 'False: any OpAMP client may claim any instance id (docs/security.md)',
      },
      tokens: { ...bool, description: 'agents.tokens is set' },
      client_certificates: {
        ...bool,
        description: 'The OpAMP listener requires client certificates of opamp_tls.client_ca_file',
      },
      agent_certificates: {
        ...bool,
        description:
          'agents.ca issues agent certificates over OpAMP (CSR flow) and accepts them as credentials',
      },
    }),
  }),
  AttributeKeys: object({ keys: arrayOf(str()) }),
  AttributeValues: object({ key: str(), values: arrayOf(str()) }),
  Revocation: object({
    instance_uid: str(),
    revoked_at: time,
    revoked_by: str(),
    certificates_revoked: int(),
    already_revoked: bool,
  }),
};
