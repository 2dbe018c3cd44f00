// What the container proof takes from the chart (`helm template`): the ConfigMap's config file, the
// Deployment's grace period, arguments, config mount, user, ports and the Secret-backed environment,
// so that the container runs as the chart would run it. And a small podman runner.

import { execFile, execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

export interface Rendered {
  readonly configYaml: string;
  readonly configPath: string;
  readonly graceSeconds: number;
  readonly args: readonly string[];
  readonly runAsUser: number;
  readonly ports: { readonly opamp: number; readonly ui: number; readonly telemetry: number };
  /** Environment variables the chart fills from Secrets: the variable and the Secret key. */
  readonly secretEnv: readonly { readonly name: string; readonly key: string }[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);

export function readRendered(helm: string, chart: string, args: readonly string[]): Rendered {
  const text = execFileSync(helm, ['template', 'proof', chart, ...args], { encoding: 'utf8' });
  const docs = parseAllDocuments(text).map((d) => obj(d.toJS()));
  const configMap = docs.find((d) => d.kind === 'ConfigMap');
  const deployment = docs.find((d) => d.kind === 'Deployment');
  if (!configMap || !deployment) throw new Error('helm template gave no ConfigMap or no Deployment');
  const pod = obj(obj(obj(deployment.spec).template).spec);
  const container = list(pod.containers)[0] ?? {};
  const mount = list(container.volumeMounts).find((m) => m.name === 'config');
  const port = (name: string) => Number(list(container.ports).find((p) => p.name === name)?.containerPort);
  return {
    configYaml: String(obj(configMap.data)['config.yaml']),
    configPath: String(mount?.mountPath),
    graceSeconds: Number(pod.terminationGracePeriodSeconds),
    args: Array.isArray(container.args) ? container.args.map(String) : [],
    runAsUser: Number(obj(pod.securityContext).runAsUser),
    ports: { opamp: port('opamp'), ui: port('ui'), telemetry: port('telemetry') },
    secretEnv: list(container.env)
      .filter((e) => obj(obj(e.valueFrom).secretKeyRef).key !== undefined)
      .map((e) => ({ name: String(e.name), key: String(obj(obj(e.valueFrom).secretKeyRef).key) })),
  };
}

/** Runs podman; resolves with its standard output (and error, with `both`), rejects with its error. */
export function podman(args: readonly string[], both = false): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('podman', args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`podman ${args.slice(0, 2).join(' ')}: ${stderr || error.message}`));
      else resolve(both ? stdout + stderr : stdout);
    });
  });
}
