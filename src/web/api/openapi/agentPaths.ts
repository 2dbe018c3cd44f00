// Paths of the agent and status reads (src/web/api/agentRoutes.ts, infoRoutes.ts).

import { booleanFilterKeys } from '../../../projections/filter/fleetFilter.ts';
import { ref } from './jsonSchema.ts';
import {
  configStateParam,
  json,
  pageParams,
  pathParam,
  queryParam,
  responses,
  writeNote,
  writeSecurity,
} from './operations.ts';

const filterParams = [
  ...booleanFilterKeys.map((key) =>
    queryParam(key, { type: 'boolean' }, `Exactly true or false, at most once`),
  ),
  configStateParam,
  {
    ...queryParam(
      'match',
      { type: 'array', items: { type: 'string' } },
      'A list of matchers separated by commas, all of which must hold: key=value, key!=value, key=~regex, key!~regex (RE2, whole value); healthy, connected, via_gateway and config_state are the status fields. Repeatable; at most 32 matchers in all',
    ),
    style: 'form',
    explode: true,
  },
  {
    ...queryParam(
      'component',
      { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 } },
      'An available component the agent reported: a type in any kind (otlp) or kind/type (receivers/otlp); repeatable (AND), at most 16',
    ),
    style: 'form',
    explode: true,
  },
  queryParam('attr_key', { type: 'string' }, 'Legacy exact match: the key (with attr_value)'),
  queryParam('attr_value', { type: 'string' }, 'Legacy exact match: the value (with attr_key)'),
];

export const agentPaths = {
  '/api/agents': {
    get: {
      operationId: 'listAgents',
      summary: 'Agents, filtered and paged, in instance UID order',
      description: 'Any other query parameter `key=value` is an exact attribute match.',
      parameters: [...filterParams, ...pageParams],
      responses: responses({ '200': json('A page of agent summaries', ref('AgentPage')) }, ['400']),
    },
  },
  '/api/agents/{id}': {
    get: {
      operationId: 'getAgent',
      summary: 'One agent in detail',
      parameters: [pathParam('id', { type: 'string' }, 'Instance UID')],
      responses: responses({ '200': json('The agent', ref('AgentDetail')) }, ['404']),
    },
  },
  '/api/agents/{id}/revoke': {
    post: {
      operationId: 'revokeAgent',
      summary: 'Revoke the agent’s credential binding and every certificate issued to it',
      description: `${writeNote} Revoking a revoked agent changes nothing and answers the first revocation.`,
      security: writeSecurity,
      parameters: [pathParam('id', { type: 'string' }, 'Instance UID')],
      responses: responses({ '200': json('The revocation', ref('Revocation')) }, ['404', '503']),
    },
  },
  '/api/status': {
    get: {
      operationId: 'getStatus',
      summary: 'This replica’s fleet counts and build',
      responses: responses({ '200': json('Status', ref('Status')) }, []),
    },
  },
  '/api/attributes': {
    get: {
      operationId: 'listAttributeKeys',
      summary: 'Attribute keys the agents of this replica report',
      parameters: [queryParam('prefix', { type: 'string' }, 'Keep keys that start with it')],
      responses: responses({ '200': json('Keys', ref('AttributeKeys')) }, []),
    },
  },
  '/api/attributes/values': {
    get: {
      operationId: 'listAttributeValues',
      summary: 'Values of one attribute key',
      parameters: [
        { ...queryParam('key', { type: 'string', minLength: 1 }, 'The attribute key'), required: true },
        queryParam('prefix', { type: 'string' }, 'Keep values that start with it'),
      ],
      responses: responses({ '200': json('Values', ref('AttributeValues')) }, ['400']),
    },
  },
};
