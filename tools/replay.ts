// Entry point of the replay tool: `npx node tools/replay.ts FILE [options]` (npm run replay -- FILE).
// Exit codes: 0 done, 2 bad usage or an unreadable recording.

import { RecordingFormatError } from '../src/io/recorder/recordingReader.ts';
import { ConfigError } from '../src/io/config/loadConfig.ts';
import { replayUsage, runReplayCli, UsageError } from './replay/replayCli.ts';

// `replay FILE | head` closes stdout early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  process.exitCode = await runReplayCli(process.argv.slice(2));
} catch (error) {
  const known =
    error instanceof UsageError || error instanceof RecordingFormatError || error instanceof ConfigError;
  const code = (error as NodeJS.ErrnoException).code;
  if (known || code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ENOENT') {
    process.stderr.write(
      `replay: ${(error as Error).message}\n${error instanceof UsageError ? `${replayUsage}\n` : ''}`,
    );
    process.exitCode = 2;
  } else {
    throw error;
  }
}
