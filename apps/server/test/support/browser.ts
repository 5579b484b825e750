/**
 * A minimal browser over fetch for end-to-end tests: keeps cookies, follows redirects on its own
 * origin by hand (so a redirect to the client's redirect URI is seen, not followed), and reads
 * the forms of a page.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  private remember(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Drops a cookie, as a browser does when it expires. */
  forget(name: string): void {
    this.cookies.delete(name);
  }

  /** Whether the browser holds a cookie of this name. */
  has(name: string): boolean {
    return this.cookies.has(name);
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { Cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<Response> {
    const absolute = new URL(url, this.origin).toString();
    const response = await fetch(absolute, {
      method,
      redirect: 'manual',
      headers: { Accept: 'text/html', ...this.cookieHeader(), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    this.remember(response);
    return response;
  }

  /** GETs (or POSTs) and follows redirects while they stay on this origin; returns the last response. */
  async navigate(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<Response> {
    let response = await this.request(method, url, form);
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops += 1) {
      const location = new URL(response.headers.get('location') ?? '', this.origin);
      if (location.origin !== this.origin) return response;
      await response.body?.cancel();
      response = await this.request('GET', location.toString());
    }
    return response;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", '#x2F': '/' };
const decode = (text: string): string => text.replace(/&(#?\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole);

export interface Form {
  action: string;
  method: string;
  /** Hidden inputs with their values. */
  hidden: Record<string, string>;
}

/** The forms of a page, with their hidden fields (the CSRF token among them). */
export function formsOf(html: string): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = match[1] ?? '';
    const hidden: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
      const attrs = input[1] ?? '';
      if (!/type="hidden"/i.test(attrs)) continue;
      const name = /name="([^"]*)"/.exec(attrs)?.[1];
      const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? '';
      if (name !== undefined) hidden[decode(name)] = decode(value);
    }
    forms.push({
      action: decode(/action="([^"]*)"/i.exec(attributes)?.[1] ?? ''),
      method: (/method="([^"]*)"/i.exec(attributes)?.[1] ?? 'get').toLowerCase(),
      hidden,
    });
  }
  return forms;
}

/** The one form whose action starts with `prefix`. */
export function formWithAction(html: string, prefix: string): Form {
  const found = formsOf(html).filter((form) => form.action.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one form posting to ${prefix}, found ${found.length} in:\n${html}`);
  return found[0] as Form;
}

/**
 * A user in a fresh browser on `origin`: signs in on the login page the authorization URL leads
 * to, then presses Allow on the consent page; returns the consent page's text and the URL the
 * server redirected to (the client's redirect URI with the code).
 *
 * @example
 * const { callback } = await userAllows(p.origin, { email: p.email, password: PASSWORD }, authorizationUrl);
 */
export async function userAllows(origin: string, user: { email: string; password: string }, authorizationUrl: URL): Promise<{ consentPage: string; callback: URL }> {
  const browser = new Browser(origin);
  const loginPage = await browser.navigate('GET', authorizationUrl.pathname + authorizationUrl.search);
  if (loginPage.status !== 200) throw new Error(`the authorization URL answered ${loginPage.status}, not the login page`);
  const login = formWithAction(await loginPage.text(), '/oauth/login');
  const consentResponse = await browser.navigate('POST', login.action, { ...login.hidden, email: user.email, password: user.password });
  if (consentResponse.status !== 200) throw new Error(`signing in answered ${consentResponse.status}, not the consent page`);
  const consentPage = await consentResponse.text();
  const consent = formWithAction(consentPage, '/oauth/authorize');
  const redirect = await browser.navigate('POST', consent.action, { ...consent.hidden, decision: 'allow' });
  if (redirect.status !== 302) throw new Error(`Allow answered ${redirect.status}, not a redirect to the client`);
  return { consentPage, callback: new URL(redirect.headers.get('location') as string) };
}

