// Scrapes a metrics endpoint over HTTP and reads it with a real Prometheus text-format parser.

import { expect } from 'chai';
import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

export interface Exposition {
  readonly families: ReadonlyMap<string, PromFamily>;
  /** The family, failing the spec when it is absent. */
  family(name: string): PromFamily;
  /** Samples of `name` whose labels include `labels`. */
  samples(name: string, labels?: Record<string, string>): PromSample[];
  /** The one sample's value; undefined when no sample matches. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const matches = (sample: PromSample, labels: Record<string, string>): boolean =>
  Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v);

export async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(url);
  expect(res.status, url).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  const families = new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
  const family = (name: string): PromFamily => {
    const f = families.get(name);
    expect(f, `metric ${name}`).to.not.equal(undefined);
    return f!;
  };
  const samples = (name: string, labels: Record<string, string> = {}) =>
    (families.get(name)?.metrics ?? []).filter((s) => matches(s, labels));
  return {
    families,
    family,
    samples,
    value: (name, labels = {}) => {
      const found = samples(name, labels);
      expect(found.length, `${name} ${JSON.stringify(labels)} matches at most one series`).to.be.at.most(1);
      return found[0]?.value === undefined ? undefined : Number(found[0].value);
    },
  };
}

/** Every label name a family's samples carry (histograms: besides `le`). */
export const labelNamesOf = (family: PromFamily): string[] =>
  [...new Set(family.metrics.flatMap((s) => Object.keys(s.labels ?? {})))].sort();
