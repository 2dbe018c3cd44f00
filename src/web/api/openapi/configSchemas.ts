// Schemas of the remote config API (src/web/views/configView.ts, src/web/api/configRequest.ts,
// docs/remote-config.md "API").

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

/** Bodies as readers get them (docs/security.md "Reads and redaction"). */
export const shownBody =
  'The body; for a caller who is not an admin, with the values of secret keys and URL credentials replaced by `<redacted>` (docs/security.md, Reads and redaction)';

const counts = object({
  targeted: int(),
  pending: int(),
  applying: int(),
  applied: int(),
  failed: int(),
  rolled_back: int(),
  incompatible: int(),
  unsupported: int(),
});

const revisionFields: Record<string, Schema> = {
  revision: int(1),
  current: bool,
  draft: bool,
  selector: str(),
  content_type: str(),
  enabled: bool,
  body_hash: str(),
  body_bytes: int(),
  author: str(),
  created_at: nullable(time),
  restored_from: nullable(int(1)),
  body: str(shownBody),
};

const configFields: Record<string, Schema> = {
  name: str(),
  selector: str(),
  content_type: str(),
  enabled: bool,
  body_hash: str(),
  current_revision: nullable(int(1)),
  latest_revision: int(1),
  draft_revision: nullable(int(1)),
  updated_at: nullable(time),
  updated_by: str(),
  agents: counts,
};

/** What a write request may carry (configRequest.ts checks the same fields). */
const requestFields: Record<string, Schema> = {
  name: str('A config name: letters, digits, `.`, `_` and `-`'),
  selector: str('The agents it targets, in the matcher language of /api/agents'),
  body: str('The config body, at most 1 MiB'),
  content_type: str('Default text/yaml'),
  enabled: { ...bool, description: 'Default true' },
  draft: { ...bool, description: 'Save without putting it in force (default false)' },
  revision: { ...int(1), description: 'The newest revision the change is based on (the precondition)' },
};
const optional = (fields: Record<string, Schema>, required: readonly string[]) => ({
  ...object(fields),
  required: [...required],
});

export const configSchemas: Record<string, Schema> = {
  ConfigSummary: object(configFields),
  ConfigList: object({
    source: oneOfValues(['database', 'directory', 'none']),
    writable: bool,
    read_only_reason: nullable(str()),
    configs: arrayOf(ref('ConfigSummary')),
    problems: arrayOf(object({ name: str(), source: str(), error: str(), at: nullable(time) })),
    partial: bool,
  }),
  Config: object(
    {
      ...configFields,
      body: str(shownBody),
      draft: nullable(ref('RevisionWithBody')),
      partial: bool,
    },
    ['partial'],
  ),
  Revision: object(revisionFields, ['body']),
  RevisionWithBody: object(revisionFields),
  RevisionList: object({ name: str(), revisions: arrayOf(ref('Revision')) }),
  NamedRevision: object({ name: str(), ...revisionFields }),
  ConfigAgents: object({
    name: str(),
    total: int(),
    limit: int(1),
    offset: int(),
    partial: bool,
    agents: arrayOf(
      object({
        instance_uid: str(),
        display_name: str(),
        connected: bool,
        config_state: ref('ConfigState'),
        desired_hash: str(),
        reported_hash: str(),
        error_message: str(),
      }),
    ),
  }),
  ConfigPreview: object({
    name: str(),
    selector: str(),
    targeted: int(),
    changed: int(),
    incompatible: {
      ...int(),
      description: 'Agents that would lack a component type the config names: it would not be sent to them',
    },
    body_known: bool,
    partial: bool,
    agents: arrayOf(
      object({
        instance_uid: str(),
        targeted: bool,
        config_state: ref('ConfigState'),
        desired_hash: nullable(str()),
        desired_hash_after: nullable(str()),
        missing_components_after: {
          ...mapOf(arrayOf(str())),
          description:
            'Kind → the types the desired config after the change names that the agent lacks; empty when none',
        },
      }),
    ),
  }),
  ConfigCreate: optional(requestFields, ['name', 'selector', 'body']),
  ConfigUpdate: optional(requestFields, ['revision']),
  ConfigPreviewRequest: optional(requestFields, ['selector']),
  ConfigPrecondition: optional({ revision: requestFields.revision! }, []),
  Conflict: object({ error: str(), latest_revision: int(1) }),
};
