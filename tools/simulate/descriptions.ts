// Realistic agent descriptions: service.name, service.version, host.name, os.type and a few custom keys
// (about ten attributes in all by default), chosen deterministically from the agent's slot.

const services = [
  'io.opentelemetry.collector',
  'checkout',
  'payments',
  'inventory',
  'frontend',
  'search',
  'auth',
  'billing',
];
const osTypes = ['linux', 'linux', 'linux', 'windows', 'darwin'];
const environments = ['production', 'staging', 'development'];
const regions = ['eu-west-1', 'us-east-1', 'ap-southeast-2'];
const teams = ['platform', 'payments', 'growth', 'search'];

const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** identifying: service.name, service.version, service.instance.id; the rest non-identifying. */
export function describeAgent(index: number, uid: string, attributes = 10) {
  const pick = <T>(list: readonly T[], salt: number): T => list[(index * 7 + salt) % list.length]!;
  const identifying = [
    kv('service.name', pick(services, 0)),
    kv('service.version', `1.${index % 7}.${index % 3}`),
    kv('service.instance.id', uid),
  ];
  const nonIdentifying = [
    kv('host.name', `sim-host-${index}`),
    kv('os.type', pick(osTypes, 1)),
    kv('host.arch', index % 4 === 0 ? 'arm64' : 'amd64'),
    kv('deployment.environment', pick(environments, 2)),
    kv('cloud.region', pick(regions, 3)),
    kv('team', pick(teams, 4)),
    kv('k8s.cluster.name', `cluster-${index % 5}`),
  ];
  for (let i = identifying.length + nonIdentifying.length; i < attributes; i++)
    nonIdentifying.push(kv(`custom.key${i}`, `value-${index % 13}`));
  return {
    identifyingAttributes: identifying,
    nonIdentifyingAttributes: nonIdentifying.slice(0, Math.max(0, attributes - 3)),
  };
}
