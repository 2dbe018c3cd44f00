// What the highlighters produce: a run of text and its class. Its own module so that each language's
// tokenizer and the language guess (highlight.ts) can share it without importing each other.

export type TokenClass = 'key' | 'str' | 'num' | 'lit' | 'com' | 'punct' | '';

export interface Token {
  readonly c: TokenClass;
  readonly v: string;
}
