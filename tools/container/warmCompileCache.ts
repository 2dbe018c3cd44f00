// Run at image build time with NODE_COMPILE_CACHE set (Containerfile): loads every module the service
// loads, the lazily required ones too, without starting it, so that the cache holds their compiled
// code and a container starts without compiling them again. Loading has no side effects: modules only
// define things until the composition root (src/main.ts) starts them.

import { flushCompileCache, getCompileCacheDir } from 'node:module';

await import('../../src/app.ts');
await import('../../src/persistence/persistence.ts');
await import('../../src/io/tls/x509.ts');
await import('pino-pretty');
flushCompileCache();
console.log(
  `compile cache warmed in ${getCompileCacheDir() ?? '(no cache directory: NODE_COMPILE_CACHE unset)'}`,
);
