// Startup entry to the TLS files: the material of every listener, or a ConfigError naming each bad
// key (main.ts reports it and exits before any listener opens).

import { ConfigError } from '../config/loadConfig.ts';
import type { Config } from '../config/schema.ts';
import { readTlsMaterial, type ListenersTls } from './tlsMaterial.ts';

export function loadTlsMaterial(
  config: Pick<Config, 'opamp_tls' | 'ui_tls' | 'telemetry_tls'>,
): ListenersTls {
  const { tls, problems } = readTlsMaterial(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return tls;
}
