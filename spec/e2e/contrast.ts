// Reads the contrast of a rendered page the way WCAG 2.2 defines it: for every visible element that
// holds text of its own, the ratio between its computed colour and the first opaque background
// behind it (its own or an ancestor's). A theme "reads well" when the page background follows the
// theme and every such ratio is at least 4.5 (AA for body text). What a screenshot only shows, this
// measures, so a theme that loses a colour fails a spec.
// Also the ratio between two colours read back from the browser (charts' strokes and fills).

import { expect } from 'chai';
import type { Page } from 'playwright-core';

export type Rgb = readonly [number, number, number];

export function parseRgb(css: string): Rgb {
  const m = /^rgba?\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)/.exec(css);
  if (m === null) throw new Error(`not an rgb() colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Relative luminance (WCAG 2.1, with the sRGB transfer function). */
function luminance([r, g, b]: Rgb): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

export interface ContrastReport {
  /** Relative luminance (0 black … 1 white) of the page's own background. */
  readonly pageLuminance: number;
  /** Elements whose text is under the ratio: `tag.class "text" ratio`. */
  readonly failures: readonly string[];
  /** How many text elements were measured (a page with none measured proves nothing). */
  readonly measured: number;
}

/** Runs in the page; kept free of closures over Node values (it is serialised into the browser). */
function measure(minRatio: number): ContrastReport {
  type Rgba = [number, number, number, number];
  const parse = (text: string): Rgba => {
    const m = /rgba?\(([^)]+)\)/.exec(text);
    if (m === null) return [0, 0, 0, 0];
    const parts = m[1]!.split(/[ ,/]+/).filter((p) => p !== '');
    const [r, g, b] = parts.slice(0, 3).map(Number) as [number, number, number];
    const a = parts[3] === undefined ? 1 : Number(parts[3]);
    return [r, g, b, a];
  };
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]: Rgba) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i]! * a + bottom[i]! * (1 - a)).concat(1) as Rgba;
  };
  const g = globalThis as unknown as {
    document: { body: Element; documentElement: Element; querySelectorAll(s: string): Iterable<Element> };
    getComputedStyle(e: Element): {
      color: string;
      backgroundColor: string;
      visibility: string;
      display: string;
      opacity: string;
    };
  };
  interface Element {
    readonly parentElement: Element | null;
    readonly childNodes: Iterable<{ nodeType: number; textContent: string | null }>;
    readonly tagName: string;
    readonly className: unknown;
    getClientRects(): { length: number };
  }
  const backgroundOf = (element: Element): Rgba => {
    const layers: Rgba[] = [];
    for (let e: Element | null = element; e !== null; e = e.parentElement) {
      const bg = parse(g.getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let result: Rgba = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) result = over(layers[i]!, result);
    return result;
  };
  const failures: string[] = [];
  let measured = 0;
  for (const element of g.document.querySelectorAll('body *')) {
    const own = [...element.childNodes]
      .filter((n) => n.nodeType === 3)
      .map((n) => n.textContent ?? '')
      .join('')
      .trim();
    if (own === '' || element.getClientRects().length === 0) continue;
    const style = g.getComputedStyle(element);
    if (style.visibility === 'hidden' || style.display === 'none' || style.opacity === '0') continue;
    const background = backgroundOf(element);
    const colour = over(parse(style.color), background);
    const [hi, lo] = [luminance(colour), luminance(background)].sort((x, y) => y - x) as [number, number];
    const ratio = (hi + 0.05) / (lo + 0.05);
    measured++;
    if (ratio < minRatio)
      failures.push(
        `${element.tagName.toLowerCase()}.${String(element.className)} "${own.slice(0, 30)}" ${ratio.toFixed(2)}`,
      );
  }
  return { pageLuminance: luminance(backgroundOf(g.document.body)), failures, measured };
}

/** The contrast of the page as it is rendered now (text under `minRatio`, 4.5 by default, fails). */
export const contrastOf = (page: Page, minRatio = 4.5): Promise<ContrastReport> =>
  page.evaluate(measure, minRatio);

/**
 * Opens each path in `scheme` and asserts it reads well: its background follows the theme and every
 * text is at least 4.5:1; saves a screenshot of each (`file`) for people to look at.
 */
export async function expectReadsWell(
  page: Page,
  scheme: 'light' | 'dark',
  pages: readonly (readonly [url: string, file: string])[],
  screenshot: (page: Page, file: string) => Promise<unknown>,
): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  try {
    for (const [url, file] of pages) {
      await page.goto(url);
      const report = await contrastOf(page);
      expect(report.measured, url).to.be.greaterThan(10);
      expect(report.failures, url).to.deep.equal([]);
      if (scheme === 'dark') expect(report.pageLuminance, url).to.be.below(0.1);
      else expect(report.pageLuminance, url).to.be.above(0.8);
      await screenshot(page, file);
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}
