import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** The README's and the docs' screenshots (docs/images/). */
const DOCS_IMAGES = fileURLToPath(new URL('../../../../docs/images/', import.meta.url));

let scratch: string | undefined;

/**
 * Where a browser test saves the screenshot `name`: docs/images/ when `npm run screenshots` asks
 * for new ones (GATEHOUSE_UPDATE_SCREENSHOTS=1), else a temporary folder, so that a test run never
 * changes the checkout's files. The screenshot is taken either way.
 *
 * @example
 * await page.screenshot({ path: screenshotPath('consent.png') });
 */
export function screenshotPath(name: string): string {
  if (process.env.GATEHOUSE_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS_IMAGES, { recursive: true });
    return join(DOCS_IMAGES, name);
  }
  scratch ??= mkdtempSync(join(tmpdir(), 'gatehouse-screenshots-'));
  return join(scratch, name);
}

/**
 * Rewrites, in the page as shown, every occurrence of each key of `fixed` (in text and in input
 * values) to its value: a screenshot of a page that shows a random client ID or the test server's
 * port is then the same from run to run. Only the picture changes; reload the page to go on
 * testing it.
 *
 * @example
 * await showFixedValues(page, { [origin]: 'https://auth.example.com', [client.clientId]: 'kJ4vQx9TzR2mNw7pLc5sHd' });
 */
export async function showFixedValues(page: Page, fixed: Record<string, string>): Promise<void> {
  const pairs = Object.entries(fixed);
  await page.locator('input').evaluateAll((inputs, replacements) => {
    for (const input of inputs as Array<{ value: string }>) input.value = replacements.reduce((text, [from, to]) => text.split(from).join(to), input.value);
  }, pairs);
  // Text nodes (nodeType 3) of every element of the body.
  await page.locator('body, body *').evaluateAll((elements, replacements) => {
    for (const element of elements) {
      for (const node of Array.from(element.childNodes as ArrayLike<{ nodeType: number; nodeValue: string | null }>)) {
        if (node.nodeType === 3) node.nodeValue = replacements.reduce((text, [from, to]) => text.split(from).join(to), node.nodeValue ?? '');
      }
    }
  }, pairs);
}
