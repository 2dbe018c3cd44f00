// Types for parse-prometheus-text-format (the package ships none): the prom2json-style output.
declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
