import type request from 'supertest';
import { expect } from 'vitest';
import { inputValue, type TestBrowser } from '../../test-support/index.js';

/** The create form's fields for `scopes`, as the checkboxes post them. */
export function scopeFields(scopes: readonly string[]): Record<string, string> {
  return Object.fromEntries(scopes.map((scope) => [`scope_${scope}`, 'on']));
}

export interface RegisteredOverHttp {
  clientId: string;
  clientSecret: string;
  /** The secret page's response. */
  page: request.Response;
}

/** Registers a client through the portal form and reads the secret page once. */
export async function registerThroughPortal(
  browser: TestBrowser,
  input: { name?: string; redirectUris?: string; scopes?: string[]; pkceRequired?: boolean } = {},
): Promise<RegisteredOverHttp> {
  await browser.get('/portal/clients/new').expect(200);
  const created = await browser.postForm('/portal/clients', {
    name: input.name ?? 'Billing app',
    redirect_uris: input.redirectUris ?? 'https://billing.example/callback',
    ...scopeFields(input.scopes ?? ['messaging.v1.send']),
    ...(input.pkceRequired ? { pkce_required: 'on' } : {}),
  });
  expect(created.status, created.text).toBe(303);
  const location = created.headers.location as string;
  const clientId = /^\/portal\/clients\/([A-Za-z0-9]+)\/secret$/.exec(location)?.[1];
  expect(clientId, location).toBeDefined();
  const page = await browser.get(location).expect(200);
  const clientSecret = inputValue(page.text, 'client_secret');
  expect(clientSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
  return { clientId: clientId as string, clientSecret: clientSecret as string, page };
}

/** The text of the field error under the field `id` (undefined when there is none). */
export function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p class="field-error" id="${id}-error" role="alert">([^<]*)</p>`).exec(html)?.[1];
}
