// GET /api/audit (src/web/audit/auditRoutes.ts): the audit log, newest first.

import { auditActions } from '../../../projections/access/auditLog.ts';
import { maxAuditLimit } from '../../audit/auditQuery.ts';
import { arrayOf, int, nullable, object, oneOfValues, ref, str, time } from './jsonSchema.ts';
import { json, queryParam, responses } from './operations.ts';

export const auditSchemas = {
  AuditEntry: object({
    id: int(1),
    at: time,
    actor: object({
      kind: oneOfValues(['session', 'token', 'certificate', 'anonymous']),
      id: str('The OIDC subject, the SPIFFE id, the token name, or anonymous'),
      name: str('The email or name of a signed-in person; the id otherwise'),
    }),
    action: oneOfValues(auditActions),
    target_kind: oneOfValues(['config', 'job', 'agent']),
    target: str('The config name, job id or agent instance id'),
    via: oneOfValues(['api', 'ui']),
    detail: str(),
  }),
};

export const auditPaths = {
  '/api/audit': {
    get: {
      operationId: 'listAudit',
      summary: 'The audit log: every write with its actor, newest first',
      description: 'Needs an identity (a session, an API token or a client certificate) of any role.',
      parameters: [
        queryParam('who', { type: 'string' }, 'Part of the actor’s name or id, any case'),
        queryParam('action', oneOfValues(auditActions), 'Only this action'),
        queryParam('target', { type: 'string' }, 'Only this config name, job id or agent id'),
        queryParam('since', { type: 'string' }, 'From this time (RFC 3339 or a date), inclusive'),
        queryParam('until', { type: 'string' }, 'Before this time (RFC 3339 or a date)'),
        queryParam(
          'limit',
          { type: 'integer', minimum: 1, maximum: maxAuditLimit, default: 100 },
          'Page size',
        ),
        queryParam('before', { type: 'integer', minimum: 1 }, 'Entries older than this id (next page)'),
      ],
      responses: responses(
        {
          '200': json(
            'Entries, newest first',
            object({ entries: arrayOf(ref('AuditEntry')), next_before: nullable(int(1)) }),
          ),
        },
        ['400'],
      ),
    },
  },
};
