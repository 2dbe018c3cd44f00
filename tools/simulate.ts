// Entry point of the fleet simulator: `npx node tools/simulate.ts [options]` (npm run simulate --).
// Exit codes: 0 done, 2 bad usage.

import { runSimulateCli, simulateUsage, UsageError } from './simulate/simulateCli.ts';

try {
  process.exitCode = await runSimulateCli(process.argv.slice(2));
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (
    error instanceof UsageError ||
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
  ) {
    process.stderr.write(`simulate: ${(error as Error).message}\n${simulateUsage}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
