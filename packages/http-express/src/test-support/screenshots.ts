import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
