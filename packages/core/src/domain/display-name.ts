/** A lone UTF-16 surrogate (RFC 8259 §8.2): no text; stored, it would read back as something else. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** The zero-width non-joiner and joiner: format characters that words of some scripts (Persian) and emoji sequences need. */
export const JOINERS = /[\u200C\u200D]/gu;

/** An emoji's presentation selector (text ︎ or emoji ️ style): the one place a variation selector shows. */
const EMOJI_PRESENTATION = /(\p{Extended_Pictographic})[\uFE0E\uFE0F]/gu;

/**
 * Characters that draw nothing: the format characters (a zero-width space, a direction override),
 * and those Unicode counts as letters, marks or symbols: the Hangul fillers (letters), the combining
 * grapheme joiner and the variation selectors (marks) are default-ignorable; the Braille blank (a
 * symbol) is a blank cell.
 */
const DRAWS_NOTHING = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u;

/**
 * What makes a name people are shown (an app on the consent page, an attribute in the admin API)
 * unfit, or undefined: a lone surrogate (RFC 8259 §8.2: not text), a control character or a
 * line or paragraph separator, an invisible format character (a zero-width space, a direction
 * override that reverses the text around it) or another character that draws nothing (a Hangul
 * filler, a combining grapheme joiner, a variation selector but an emoji's) other than the joiners,
 * a private-use character (no meaning a reader shares), or no visible character at all
 * (docs/decisions/0190-attribute-names-unique-as-read.md). The caller composes and trims first.
 * Each answer completes "the name …".
 *
 * @example
 * displayNameProblem('\u200b'); // 'must not contain invisible formatting characters'
 * displayNameProblem('department\u3164'); // 'must not contain invisible formatting characters'
 */
export function displayNameProblem(name: string): string | undefined {
  if (LONE_SURROGATE.test(name)) return 'must be well-formed Unicode (a lone surrogate is not)';
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(name)) return 'must not contain control characters';
  const shown = name.replace(JOINERS, '').replace(EMOJI_PRESENTATION, '$1');
  if (DRAWS_NOTHING.test(shown)) return 'must not contain invisible formatting characters';
  if (/\p{Co}/u.test(name)) return 'must not contain private-use characters';
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(name)) return 'must contain a visible character';
  return undefined;
}
