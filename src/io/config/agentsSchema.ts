// The `agents` section of the configuration (issue 22; docs/security.md): the agent CA that signs
// agents' CSRs (agents.ca.*) and the limits on what one agent may report (agents.limits.*). The CA's
// files are read and checked here, at startup, by src/io/tls/agentCaFiles.ts.

import Joi from 'joi';
import { defaultReportLimits, type ReportLimits } from '../../projections/agent/reportLimits.ts';
import type { AgentCaConfig } from '../tls/agentCaFiles.ts';

type Rule = (fallback: number) => Joi.Schema;

/** A count or length limit: a positive integer. */
const limit: Rule = (fallback) => Joi.number().integer().min(1).default(fallback);

export function agentsSchema(duration: (fallback: string) => Joi.Schema, byteSize: Rule): Joi.ObjectSchema {
  const d = defaultReportLimits;
  return Joi.object({
    ca: Joi.object({
      cert_file: Joi.string().allow('').default(''),
      key_file: Joi.string().allow('').default(''),
      // SPIFFE trust domain (the SPIFFE ID standard: lowercase letters, digits, '.', '-', '_').
      trust_domain: Joi.string()
        .allow('')
        .pattern(/^[a-z0-9._-]+$/, 'SPIFFE trust domain')
        .default(''),
      validity: duration('720h'),
      // A token enrolling a large fleet at once needs more; a stolen one gets no more than this.
      max_per_hour: limit(1000),
    }).default(),
    limits: Joi.object({
      attribute_count: limit(d.attribute_count),
      attribute_key_length: limit(d.attribute_key_length),
      attribute_value_length: limit(d.attribute_value_length),
      effective_config_size: byteSize(d.effective_config_size),
      effective_config_files: limit(d.effective_config_files),
      health_components: limit(d.health_components),
      health_depth: limit(d.health_depth),
      health_text_length: limit(d.health_text_length),
      status_error_length: limit(d.status_error_length),
    }).default(),
  }).default();
}

export interface AgentsConfig {
  readonly ca: AgentCaConfig;
  readonly limits: ReportLimits;
}
