// protobufjs's reflection of the project's own proto/opamp/v1 files, compiled the first time a
// message needs it: a service that only ever sees status reports and usual replies never loads it.
// The memo below is a lazily built constant (the same schema whenever read), not state.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type protobufjs from 'protobufjs';

const protoFile = fileURLToPath(new URL('../../../proto/opamp/v1/opamp.proto', import.meta.url));
/** Synchronous loading on first use (protobufjs is CommonJS); the codec is synchronous. */
const load = createRequire(import.meta.url);

export interface OpampTypes {
  readonly AgentToServer: protobufjs.Type;
  readonly ServerToAgent: protobufjs.Type;
  readonly AgentRemoteConfig: protobufjs.Type;
}

let types: OpampTypes | undefined;

export function opampTypes(): OpampTypes {
  if (types === undefined) {
    const root = (load('protobufjs') as typeof protobufjs).loadSync(protoFile);
    types = {
      AgentToServer: root.lookupType('opamp.proto.v1.AgentToServer'),
      ServerToAgent: root.lookupType('opamp.proto.v1.ServerToAgent'),
      AgentRemoteConfig: root.lookupType('opamp.proto.v1.AgentRemoteConfig'),
    };
  }
  return types;
}
