// Reads an agent's credential for the API and the agent page. The store may be PostgreSQL and may be
// down: the agent is still shown (it comes from the registry or the agent store), with its credential
// marked unavailable rather than the whole read failing.

import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { CredentialStore } from '../../projections/identity/credentialStore.ts';
import { credentialView, type CredentialView } from '../views/credentialView.ts';

export type CredentialReader = Pick<CredentialStore, 'binding' | 'certificates'>;

/** The view, null when the agent never presented a credential, undefined when the store failed. */
export async function readCredential(
  store: CredentialReader,
  uid: InstanceUid,
  logger: Logger,
): Promise<CredentialView | null | undefined> {
  try {
    const [binding, certificates] = await Promise.all([store.binding(uid), store.certificates(uid)]);
    return credentialView(binding, certificates);
  } catch (error) {
    logger.error({ err: error, instance_uid: uid }, 'agent credential could not be read');
    return undefined;
  }
}
