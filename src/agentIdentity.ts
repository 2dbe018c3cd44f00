// Agent identity, composed (docs/security.md): who may open an OpAMP connection (enrollment tokens,
// client certificates, the agent CA's own certificates), which credential may speak for an id (the
// credential store's bindings), and the CSR flow's offers. Built from the configuration and the
// credential store only, before the fleet core, which is built on it; revocation needs the core's
// bus and is made beside the core (app.ts).

import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { SchedulerLike } from 'rxjs';
import type { AgentLog } from './io/agentLog.ts';
import type { Config } from './io/config/schema.ts';
import type { Logger } from './io/logger.ts';
import { createAdmission, type AdmissionResult } from './io/opamp/admission.ts';
import { createAgentAdmission, type AgentAdmission } from './io/opamp/agentAdmission.ts';
import type * as CertificateOfferModule from './io/opamp/certificateOffer.ts';
import type { CertificateOffers } from './io/opamp/certificateOffer.ts';
import { createEnrollment } from './io/opamp/enrollment.ts';
import type * as AgentCaModule from './io/tls/agentCa.ts';
import { readAgentCa } from './io/tls/agentCaFiles.ts';
import type { ListenersTls } from './io/tls/tlsMaterial.ts';
import type { CredentialStore } from './projections/identity/credentialStore.ts';
import type { AgentAuthentication } from './web/views/statusView.ts';

/**
 * How long a credential's binding read from the store admits it without asking again (a plain-HTTP
 * agent connects per poll); also how late a change of holder made on another replica is seen here.
 */
export const bindingCacheMs = 5 * 60_000;

export interface AgentIdentity {
  /** Before a WebSocket upgrade or a plain-HTTP body: who the request is (opampServer.ts). */
  readonly admit: (req: IncomingMessage) => AdmissionResult | Promise<AdmissionResult>;
  /** Per message: whether the connection's credential may speak for the id (the handler asks). */
  readonly bindings: AgentAdmission;
  /** The CSR flow's answers, when agents.ca is set and the OpAMP listener has TLS. */
  readonly certificates: CertificateOffers | undefined;
  /** The agent CA's certificate, which the OpAMP listener also trusts for client certificates. */
  readonly caPem: string | undefined;
  /** What GET /api/status and the status page say of agent authentication. */
  readonly authentication: AgentAuthentication;
}

export interface AgentIdentityDeps {
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  readonly tls: ListenersTls;
  /** Bindings and issued certificates: PostgreSQL when persistence is on, else memory. */
  readonly credentials: CredentialStore;
  /** svc_opamp_refused_total{reason} and the refusal log. */
  readonly refused: (reason: string, remoteAddr?: string) => void;
  /** Where agent-caused lines (refused CSRs) are logged, within each agent's budget. */
  readonly agentLog?: AgentLog;
}

/** The X.509 library behind the agent CA takes most of a second to load: only with agents.ca. */
function loadAgentCa(): { ca: typeof AgentCaModule; offers: typeof CertificateOfferModule } {
  const load = createRequire(import.meta.url);
  return {
    ca: load('./io/tls/agentCa.ts') as typeof AgentCaModule,
    offers: load('./io/opamp/certificateOffer.ts') as typeof CertificateOfferModule,
  };
}

export function createAgentIdentity(config: Config, deps: AgentIdentityDeps): AgentIdentity {
  const { logger, scheduler, credentials } = deps;
  // Its certificates are presented over TLS, so without TLS on the OpAMP listener nothing is offered.
  const material = deps.tls.opamp ? readAgentCa(config.agents.ca).material : undefined;
  if (config.agents.ca.cert_file !== '' && deps.tls.opamp === undefined)
    logger.warn(
      {},
      'agents.ca is set but the OpAMP listener has no TLS (opamp_tls): no certificates are offered',
    );
  const modules = material && loadAgentCa();
  const agentCa =
    material &&
    modules?.ca.createAgentCa(material, {
      trustDomain: config.agents.ca.trust_domain,
      validityMs: config.agents.ca.validity,
    });
  const certificates =
    agentCa &&
    modules?.offers.createCertificateOffers({
      ca: agentCa,
      store: credentials,
      refused: deps.refused,
      heartbeatIntervalMs: config.fleet.heartbeat_interval,
      logger,
      maxPerHour: config.agents.ca.max_per_hour,
      ...(deps.agentLog ? { agentLog: deps.agentLog } : {}),
    });

  const enrollment = createEnrollment(config.agents.tokens);
  const clientCa = config.opamp_tls.client_ca_file !== '';
  const authentication = {
    tokens: enrollment.required,
    client_certificates: clientCa,
    agent_certificates: agentCa !== undefined,
  };
  // SPEC allows unauthenticated agents; say so once, so it is a decision and not an oversight.
  if (!authentication.tokens && !clientCa)
    logger.warn(
      {},
      'agents are not authenticated: set agents.tokens or opamp_tls.client_ca_file (docs/security.md)',
    );

  return {
    admit: createAdmission({
      enrollment,
      agentCa,
      store: credentials,
      clientCa,
      gatewayCertificates: config.agents.gateway_certificates,
      now: () => scheduler.now(),
    }),
    bindings: createAgentAdmission({
      store: credentials,
      cacheMs: bindingCacheMs,
      cacheSize: config.fleet.max_agents,
      onStoreError: (error) => logger.error({ err: error }, 'credential store failed: agent refused'),
    }),
    certificates,
    caPem: material?.certPem,
    authentication,
  };
}
