/**
 * The host's brand on Gatehouse's pages (docs/decisions/0142): its product name in the header
 * and titles, its logo, its accent colour (buttons, links, focus rings).
 */
export interface PageBranding {
  /** Shown in every page's header and title instead of "Gatehouse" (at most 60 characters). */
  productName?: string;
  /**
   * The logo shown before the name: a path on the host's own origin (`/static/logo.svg`), which
   * the pages' CSP lets load (same origin only); its `alt` is empty, the name says it.
   */
  logoUrl?: string;
  /**
   * The accent colour: a hex colour (`#0a7`, `#00aa77`, with alpha too), `rgb()`/`rgba()`/`hsl()`/
   * `hsla()` of numbers, or a named colour (`teal`). Anything else is refused when the router is
   * made, so it cannot bring CSS of its own.
   */
  accentColor?: string;
}

/** The brand the pages show: the product name always (default "Gatehouse"). */
export interface PageBrand {
  productName: string;
  logoUrl?: string;
  accentColor?: string;
}

export const DEFAULT_BRAND: PageBrand = { productName: 'Gatehouse' };

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUMBER = String.raw`\s*[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:%|deg|rad|turn)?\s*`;
const FUNCTIONAL_COLOR = new RegExp(String.raw`^(?:rgba?|hsla?)\((?:${NUMBER})(?:[,\s/]${NUMBER}){2,3}\)$`, 'i');
const NAMED_COLOR = /^[a-z]{3,24}$/i;

/**
 * Whether `value` is a CSS colour of the forms `PageBranding.accentColor` allows: none of them can
 * close the declaration or the rule (no `;`, `{`, `}`, quotes, `<`, `\`).
 *
 * @example
 * isCssColor('#0a7'); // true
 * isCssColor('red; } body { display: none'); // false
 */
export function isCssColor(value: string): boolean {
  return HEX_COLOR.test(value) || FUNCTIONAL_COLOR.test(value) || NAMED_COLOR.test(value);
}

/**
 * The brand of `branding`, checked: a `TypeError` naming the option when the product name is empty,
 * too long or has control characters, the logo is not a same-origin path, or the accent is not a
 * colour. What `createGatehouseRouter` does with its `branding` option, at start-up.
 *
 * @example
 * pageBrand({ productName: 'Orders', accentColor: '#0a7' }); // { productName: 'Orders', accentColor: '#0a7' }
 */
export function pageBrand(branding: PageBranding | undefined): PageBrand {
  if (branding === undefined) return DEFAULT_BRAND;
  const { productName = DEFAULT_BRAND.productName, logoUrl, accentColor } = branding;
  // eslint-disable-next-line no-control-regex
  if (productName.trim() === '' || productName.length > 60 || /[\u0000-\u001f\u007f]/.test(productName)) {
    throw new TypeError('branding.productName must be 1 to 60 characters, without control characters.');
  }
  if (logoUrl !== undefined && !/^\/(?![/\\])[^\s"'<>\\]*$/.test(logoUrl)) {
    throw new TypeError(`branding.logoUrl must be a path on the host's own origin (/static/logo.svg), not ${JSON.stringify(logoUrl)}.`);
  }
  if (accentColor !== undefined && !isCssColor(accentColor)) {
    throw new TypeError(`branding.accentColor must be a CSS colour (#0a7, rgb(0 170 119), teal), not ${JSON.stringify(accentColor)}.`);
  }
  return { productName: productName.trim(), ...(logoUrl === undefined ? {} : { logoUrl }), ...(accentColor === undefined ? {} : { accentColor }) };
}

/** The rules that put the accent colour in place of the stylesheet's, light and dark. */
export function accentRules(accentColor: string): string {
  return `\n:root { --accent: ${accentColor}; }\n@media (prefers-color-scheme: dark) { :root { --accent: ${accentColor}; } }\n`;
}
