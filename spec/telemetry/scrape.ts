// Scrapes a metrics endpoint over HTTP and reads it with a real Prometheus text-format parser.

import { expect } from 'chai';
import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

export interface Exposition {
  readonly text: string;
  readonly families: ReadonlyMap<string, PromFamily>;
  /** The family, failing the spec when it is absent. */
  family(name: string): PromFamily;
  /** Samples of `name` whose labels include `labels`. */
  samples(name: string, labels?: Record<string, string>): PromSample[];
  /** The one sample's value; undefined when no sample matches. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /**
   * One series of a labelled histogram ({buckets, count, sum}). The parser folds a histogram family into
   * a single label-less series, so the series' own lines are selected first, their labels (other than
   * `le`) checked and dropped, and the parser reads what is left.
   */
  histogram(name: string, labels: Record<string, string>): PromSample | undefined;
}

const matches = (sample: PromSample, labels: Record<string, string>): boolean =>
  Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v);

export async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(url);
  expect(res.status, url).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const family = (name: string): PromFamily => {
    const f = families.get(name);
    expect(f, `metric ${name}`).to.not.equal(undefined);
    return f!;
  };
  const samples = (name: string, labels: Record<string, string> = {}) =>
    (families.get(name)?.metrics ?? []).filter((s) => matches(s, labels));
  return {
    text,
    histogram: (name, labels) => histogramSeries(text, name, labels),
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

const sampleLine = /^(\w+)\{([^}]*)\} (\S+)$/;
const labelPair = /(\w+)="((?:[^"\\]|\\.)*)"/g;

function histogramSeries(text: string, name: string, labels: Record<string, string>): PromSample | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const lines = [`# TYPE ${name} histogram`];
  for (const line of text.split('\n')) {
    const m = sampleLine.exec(line);
    if (m === null || ![`${name}_bucket`, `${name}_sum`, `${name}_count`].includes(m[1]!)) continue;
    const pairs = [...m[2]!.matchAll(labelPair)].map(([, k, v]) => [k!, v!] as const);
    if (JSON.stringify(pairs.filter(([k]) => k !== 'le').sort()) !== wanted) continue;
    const le = pairs.find(([k]) => k === 'le');
    lines.push(`${m[1]}${le ? `{le="${le[1]}"}` : ''} ${m[3]}`);
  }
  if (lines.length === 1) return undefined;
  return parsePrometheusTextFormat(`${lines.join('\n')}\n`)[0]?.metrics[0];
}
