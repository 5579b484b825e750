import { describe, expect, it } from 'vitest';
import { escapeHtml, html, unsafeRaw } from './html.js';

describe('html', () => {
  it('escapes every interpolated value, in text and attributes', () => {
    const hostile = `<script>alert("x")</script>' onmouseover=alert(1) \``;
    expect(html`<p title="${hostile}">${hostile}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=alert(1) &#96;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=alert(1) &#96;</p>',
    );
  });

  it('keeps nested templates, renders arrays, skips null, undefined and false', () => {
    const items = ['a&b', '<c>'];
    expect(html`<ul>${items.map((item) => html`<li>${item}</li>`)}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>a&amp;b</li><li>&lt;c&gt;</li></ul>0');
  });

  it('escapeHtml and unsafeRaw', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
    expect(html`${unsafeRaw('<br>')}`.value).toBe('<br>');
  });
});
