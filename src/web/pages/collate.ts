// Text order for people: case-insensitive, numbers by value (1.10.0 after 1.9.2). The ICU collator
// behind it (a few MB of collation data touched) is built at the first sort, not when the service
// starts. Pure.

let collator: Intl.Collator | undefined;

export function compareText(a: string, b: string): number {
  collator ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return collator.compare(a, b);
}
