// Paths of the remote config API (src/web/api/configRoutes.ts, configWriteRoutes.ts).

import { maxConfigRequestBytes } from '../configWriteRoutes.ts';
import { ref } from './jsonSchema.ts';
import {
  configStateParam,
  json,
  jsonBody,
  pageParams,
  pathParam,
  queryParam,
  responses,
  writeNote,
  writeSecurity,
} from './operations.ts';

const name = pathParam('name', { type: 'string' }, 'Config name');
const revision = pathParam('revision', { type: 'integer', minimum: 1 }, 'Revision number');
const conflict = json('A lost race (`latest_revision` is the newest) or a read-only source', {
  anyOf: [ref('Conflict'), ref('Error')],
});
const writeErrors = ['400', '404', '413', '503'];

export const configPaths = {
  '/api/configs': {
    get: {
      operationId: 'listConfigs',
      summary: 'Remote configs with the agents each targets, the source and its problems',
      responses: responses({ '200': json('Configs', ref('ConfigList')) }, []),
    },
    post: {
      operationId: 'createConfig',
      summary: 'Create a config (in force at once, or a draft)',
      description: writeNote,
      security: writeSecurity,
      requestBody: jsonBody(ref('ConfigCreate'), maxConfigRequestBytes),
      responses: responses({ '201': json('The config', ref('Config')), '409': conflict }, writeErrors),
    },
  },
  '/api/configs/preview': {
    post: {
      operationId: 'previewConfig',
      summary: 'What a selector or a config would target and change; changes nothing',
      requestBody: jsonBody(ref('ConfigPreviewRequest'), maxConfigRequestBytes),
      responses: responses({ '200': json('The preview (at most 100 agents listed)', ref('ConfigPreview')) }, [
        '400',
        '413',
      ]),
    },
  },
  '/api/configs/{name}': {
    get: {
      operationId: 'getConfig',
      summary: 'One config with its body, its draft and its agent counts',
      parameters: [name],
      responses: responses({ '200': json('The config', ref('Config')) }, ['404']),
    },
    put: {
      operationId: 'updateConfig',
      summary: 'Change a config; fields left out keep the newest revision’s values',
      description: writeNote,
      security: writeSecurity,
      parameters: [name],
      requestBody: jsonBody(ref('ConfigUpdate'), maxConfigRequestBytes),
      responses: responses({ '200': json('The config', ref('Config')), '409': conflict }, writeErrors),
    },
    delete: {
      operationId: 'deleteConfig',
      summary: 'Delete a config (its history is kept)',
      description: writeNote,
      security: writeSecurity,
      parameters: [
        name,
        queryParam('revision', { type: 'integer', minimum: 1 }, 'Precondition: the newest revision'),
      ],
      responses: responses({ '200': json('The config as deleted', ref('Config')), '409': conflict }, [
        '400',
        '404',
        '503',
      ]),
    },
  },
  '/api/configs/{name}/revisions': {
    get: {
      operationId: 'listRevisions',
      summary: 'A config’s revisions, newest first',
      parameters: [name],
      responses: responses({ '200': json('Revisions', ref('RevisionList')) }, ['404']),
    },
  },
  '/api/configs/{name}/revisions/{revision}': {
    get: {
      operationId: 'getRevision',
      summary: 'One revision with its body',
      parameters: [name, revision],
      responses: responses({ '200': json('The revision', ref('NamedRevision')) }, ['400', '404']),
    },
  },
  '/api/configs/{name}/revisions/{revision}/restore': {
    post: {
      operationId: 'restoreRevision',
      summary: 'Put an old revision back in force as a new revision',
      description: writeNote,
      security: writeSecurity,
      parameters: [name, revision],
      requestBody: jsonBody(ref('ConfigPrecondition'), maxConfigRequestBytes, false),
      responses: responses({ '200': json('The config', ref('Config')), '409': conflict }, writeErrors),
    },
  },
  '/api/configs/{name}/agents': {
    get: {
      operationId: 'listConfigAgents',
      summary: 'The agents a config targets and where each stands',
      parameters: [name, configStateParam, ...pageParams],
      responses: responses({ '200': json('Agents', ref('ConfigAgents')) }, ['400', '404']),
    },
  },
};
