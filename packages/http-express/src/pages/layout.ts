import type { User } from '@gatehouse/core';
import { DEFAULT_BRAND, type PageBrand } from './branding.js';
import { html, type SafeHtml } from './html.js';
import { assetBeside } from './paths.js';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './styles.js';

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  /** Shown in the header ("Signed in as …"). */
  user?: Pick<User, 'email'> | undefined;
  /** Header links (the portal adds its menu). */
  nav?: ReadonlyArray<{ href: string; label: string }>;
  /** `card` (default) for narrow forms, `wide` for tables. */
  width?: 'card' | 'wide';
  /** The stylesheet's address (default `/assets/gatehouse.css`; under the mount path when embedded). */
  stylesheetHref?: string;
  /** More of the head (a meta refresh). */
  head?: SafeHtml;
  /** The product name and logo in the header and title (default: Gatehouse's). */
  brand?: PageBrand | undefined;
  /** Loads the pages' script (beside the stylesheet); the page's CSP must then allow `script-src 'self'`. */
  withScript?: boolean;
}

/**
 * The page frame: doctype, viewport meta for phones, the served stylesheet, a header.
 *
 * @example
 * sendPage(res, 200, layout({ title: 'Sign in', body: html`<form>…</form>` }));
 */
export function layout(options: LayoutOptions): SafeHtml {
  const nav = options.nav ?? [];
  const brand = options.brand ?? DEFAULT_BRAND;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · ${brand.productName}</title>
<link rel="stylesheet" href="${options.stylesheetHref ?? STYLESHEET_PATH}">
${options.head ?? ''}<link rel="icon" href="${assetBeside(options.stylesheetHref ?? STYLESHEET_PATH, ICON_PATH)}" type="image/svg+xml">${
    options.withScript ? html`
<script src="${assetBeside(options.stylesheetHref ?? STYLESHEET_PATH, SCRIPT_PATH)}" defer></script>` : ''
  }
</head>
<body>
<header class="site"><span class="brand">${brand.logoUrl === undefined ? '' : html`<img class="logo" src="${brand.logoUrl}" alt="">`}${brand.productName}</span>${
    nav.length > 0 ? html`<nav>${nav.map((item) => html`<a href="${item.href}">${item.label}</a>`)}</nav>` : ''
  }${options.user ? html`<span class="who">Signed in as ${options.user.email}</span>` : ''}</header>
<main><div class="card${options.width === 'wide' ? ' wide' : ''}">
${options.body}
</div></main>
</body>
</html>
`;
}
