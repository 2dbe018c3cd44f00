// Remote configuration as plain data (docs/remote-config.md). A config is a named document; every
// change makes an immutable revision; one revision is current, the one agents receive.

/** A revision's content as it is distributed. */
export interface ConfigRevisionData {
  /** DNS-label style name; entries of an agent's AgentConfigMap are keyed (and ordered) by it. */
  readonly name: string;
  readonly revision: number;
  /** Matchers over agent attributes, comma-separated (the fleet filter syntax); empty matches none. */
  readonly selector: string;
  readonly body: string;
  readonly contentType: string;
  readonly enabled: boolean;
  /** SHA-256 of the body's UTF-8 bytes, lowercase hex. */
  readonly bodyHash: string;
}

/** A revision as history keeps it. */
export interface ConfigRevisionRecord extends ConfigRevisionData {
  /** Who wrote it: an API token's name, a SPIFFE id, `anonymous`, or `file:NAME.yaml`. */
  readonly author: string;
  /** Unix ms. */
  readonly createdAt: number;
  /** Saved with "draft": true: stored, distributed to nobody until made current. */
  readonly draft: boolean;
  /** The revision whose content a restore copied, else null. */
  readonly restoredFrom: number | null;
}

/** Where configs come from (docs/remote-config.md "Where configs live"). */
export type ConfigSource = 'database' | 'directory' | 'none';
