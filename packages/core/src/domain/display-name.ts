/** A lone UTF-16 surrogate (RFC 8259 §8.2): no text; stored, it would read back as something else. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** The zero-width non-joiner and joiner: format characters that words of some scripts (Persian) and emoji sequences need. */
export const JOINERS = /[\u200C\u200D]/gu;

/**
 * What makes a name people are shown (an app on the consent page, an attribute in the admin API)
 * unfit, or undefined: a lone surrogate (RFC 8259 §8.2: not text), a control character or a
 * line or paragraph separator, an invisible format character (a zero-width space, a direction
 * override that reverses the text around it) other than the joiners, or no visible character at
 * all (docs/decisions/0190-attribute-names-unique-as-read.md). The caller composes and trims
 * first. Each answer completes "the name …".
 *
 * @example
 * displayNameProblem('\u200b'); // 'must not contain invisible formatting characters'
 */
export function displayNameProblem(name: string): string | undefined {
  if (LONE_SURROGATE.test(name)) return 'must be well-formed Unicode (a lone surrogate is not)';
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(name)) return 'must not contain control characters';
  if (/\p{Cf}/u.test(name.replace(JOINERS, ''))) return 'must not contain invisible formatting characters';
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(name)) return 'must contain a visible character';
  return undefined;
}
