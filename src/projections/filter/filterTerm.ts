// The terms a fleet filter is made of, whichever box or query parameter they came from. Pure types.

import type { ConfigState } from '../remoteConfig/configState.ts';
import type { Matcher } from './matcher.ts';

export type BooleanFilterKey = 'healthy' | 'connected' | 'via_gateway';
export const booleanFilterKeys: readonly BooleanFilterKey[] = ['healthy', 'connected', 'via_gateway'];

/** Keys that name the agent's status, not an attribute, in every box (issue 30). */
export const statusFieldKeys: readonly string[] = [...booleanFilterKeys, 'config_state'];

export type FilterTerm =
  | { readonly kind: 'boolean'; readonly key: BooleanFilterKey; readonly value: boolean }
  | { readonly kind: 'config_state'; readonly states: readonly ConfigState[] }
  /** An available component the agent reported: `type` in any kind, or `kind/type`. */
  | { readonly kind: 'component'; readonly componentKind: string | undefined; readonly type: string }
  | { readonly kind: 'matcher'; readonly source: 'match' | 'bare' | 'legacy'; readonly matcher: Matcher };
