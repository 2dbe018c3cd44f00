// @peculiar/x509, loaded after the Reflect metadata polyfill its dependency injection (tsyringe)
// requires at load time. Every module of the service imports the library through this file, so the
// polyfill is in place whichever of them loads first (ES modules evaluate imports in order).

import 'reflect-metadata';

export * from '@peculiar/x509';
