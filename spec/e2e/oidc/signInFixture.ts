// What the sign-in specs share: the static users of the provider, two replicas of the service on
// one PostgreSQL signed in through Hydra, a clock the specs can move, and the browser steps of a
// sign-in as a person does them.

import type { Page } from 'playwright-core';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import type { StaticUser } from './loginApp.ts';

export const users: readonly StaticUser[] = [
  {
    username: 'alice',
    password: 'alice-password',
    subject: 'user-alice',
    email: 'alice@example.org',
    name: 'Alice Admin',
    groups: ['fleet-admins', 'staff'],
  },
  {
    username: 'victor',
    password: 'victor-password',
    subject: 'user-victor',
    email: 'victor@example.org',
    name: 'Victor Viewer',
    groups: ['fleet-viewers'],
  },
  {
    username: 'nora',
    password: 'nora-password',
    subject: 'user-nora',
    email: 'nora@example.org',
    name: 'Nora Nobody',
    groups: ['staff'],
  },
];

/** The wall clock moved by `offsetMs`: the service's idea of now (sessions, ID-token times). */
export interface MovableClock {
  readonly scheduler: SchedulerLike;
  offsetMs: number;
}

export function movableClock(): MovableClock {
  const clock: { scheduler?: SchedulerLike; offsetMs: number } = { offsetMs: 0 };
  clock.scheduler = {
    now: () => Date.now() + clock.offsetMs,
    schedule: asyncScheduler.schedule.bind(asyncScheduler),
  };
  return clock as MovableClock;
}

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly secret: string;
}

export function oidcConfig(settings: OidcSettings): Record<string, unknown> {
  return {
    issuer: settings.issuer,
    client_id: settings.clientId,
    client_secret: settings.secret,
    scopes: ['openid', 'email', 'profile', 'groups'],
    role_mapping: [
      { value: 'fleet-admins', role: 'admin' },
      { value: 'fleet-viewers', role: 'viewer' },
    ],
  };
}

export async function startReplica(
  uiPort: number,
  oidc: OidcSettings,
  database: Record<string, unknown> | undefined,
  scheduler?: SchedulerLike,
): Promise<App> {
  return startApp({
    config: {
      listeners: { ui: `127.0.0.1:${uiPort}` },
      auth: { oidc: oidcConfig(oidc) },
      ...(database === undefined ? {} : { database }),
    },
    ...(scheduler === undefined ? {} : { deps: { scheduler } }),
  });
}

/** Types the user's name and password into the provider's login page, as a person would. */
export async function answerLogin(page: Page, user: StaticUser): Promise<void> {
  await page.waitForSelector('#username');
  await page.fill('#username', user.username);
  await page.fill('#password', user.password);
  await page.click('#login');
}

/** Signs in from `startUrl` (a page that needs it, or /auth/sign-in) and waits to be back on `back`. */
export async function signIn(page: Page, startUrl: string, user: StaticUser, back: RegExp): Promise<void> {
  await page.goto(startUrl);
  await answerLogin(page, user);
  await page.waitForURL(back);
}

export const viewerName = (page: Page) => page.locator('[data-viewer-name]').textContent();
export const viewerRole = (page: Page) => page.locator('[data-viewer-role]').textContent();
