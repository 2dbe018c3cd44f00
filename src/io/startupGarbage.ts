// Gives the memory that loading the service used back once it is up. Compiling and linking the code
// grows V8's young generation to its ceiling (about 15 MB of touched pages, all garbage once startup
// is over), and V8 shrinks it only in a collection asked to reduce memory, which a service that then
// sits idle never triggers. The "last-resort" collection (the one V8 runs before it gives up on an
// allocation) is that collection: it takes a few tens of milliseconds, once, and the idle service's
// RSS drops by about 18 MB (BENCHMARKS.md, connected fleet). `gc` is reached through a fresh context
// and the flag is cleared again, so the service's own global never has it.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

interface GcOptions {
  readonly type: 'major';
  readonly execution: 'sync';
  readonly flavor: 'last-resort';
}

export function releaseStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as (options: GcOptions) => void;
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
