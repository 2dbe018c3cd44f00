// Which keys of a config hold secrets (docs/security.md "Reads and redaction"). A key is read as
// words (split at `_`, `-`, `.`, `/`, spaces, camelCase and before digits), and it is secret when one word, or two
// adjacent words, name a secret: `client_secret`, `x-api-key`, `accessToken` and `tls.key_pem` are;
// the Collector's `bearertokenauth/github` extension is not, since `token` is only part of a word.

/** Words that make a key secret on their own. */
const secretWords = new Set([
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'token',
  'tokens',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'authorization',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
]);

/** Two adjacent words that make a key secret (`api_key`, `key_pem`, `private-key`). */
const secretPairs = new Set(['api key', 'private key', 'access key', 'secret key', 'key pem', 'signing key', 'encryption key', 'master key', 'shared key']);

/** A lone `key` is secret under these parents (`api: key: S`, `tls: key: S`). */
const keyParents = new Set(['api', 'tls', 'ssl']);

/** The words of a key, lowercase: `clientSecret` → client, secret; `x-api-key` → x, api, key. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** Do these words (of a key, or of a stretch of text) name a secret? */
export function namesSecret(words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i++) {
    if (secretWords.has(words[i]!)) return true;
    if (i > 0 && secretPairs.has(`${words[i - 1]} ${words[i]}`)) return true;
  }
  return false;
}

/** Is `key` secret, given the words of the key it sits under (`[]` at the top)? */
export function isSecretKey(key: string, parent: readonly string[] = []): boolean {
  const words = keyWords(key);
  if (namesSecret(words)) return true;
  const last = parent[parent.length - 1];
  return words.length === 1 && words[0] === 'key' && last !== undefined && keyParents.has(last);
}

/**
 * Could this text hold anything redaction looks for? A cheap test on the lowercase text, wider than
 * the rule (a word's fragment, any backslash escape, any `@`): when it says no, nothing is hidden.
 */
export function mayHoldSecrets(lower: string): boolean {
  return ['pass', 'pwd', 'token', 'secret', 'credential', 'authoriz', 'key', '\\', '@'].some((w) => lower.includes(w));
}
