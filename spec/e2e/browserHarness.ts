// What the browser specs share: where Chromium is, how it is launched, where screenshots go, the
// skip-or-fail rule when it is missing, and the collector of CSP violations, script errors and
// requests to other origins.

import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const artifacts = new URL('../../artifacts/', import.meta.url);
export const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The little of the DOM the page functions use (the project compiles without the DOM lib). */
export interface Win {
  readonly document: {
    querySelectorAll(
      selector: string,
    ): Iterable<{ readonly textContent: string | null; readonly value?: string }>;
    querySelector(selector: string): { readonly textContent: string | null } | null;
    readonly documentElement: { readonly dataset: Record<string, string | undefined> };
  };
}

/**
 * Skips the suite with the reason when Chromium is missing, except under CI=true, where it fails.
 * Call from a `before` hook with its context.
 */
export function requireChromium(context: Mocha.Context): void {
  if (existsSync(executablePath)) {
    mkdirSync(artifacts, { recursive: true });
    return;
  }
  const reason = `Chromium not found at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI requires the browser spec to run`);
  console.log(`      skipped: ${reason}`);
  context.skip();
}

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath, args: launchArgs });

/** Records console errors (CSP violations are reported there), page errors and foreign requests. */
export function watchProblems(page: Page, origin: () => string, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin())) problems.push(`external request: ${r.url()}`);
  });
}

export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: new URL(name, artifacts).pathname, fullPage: true });
