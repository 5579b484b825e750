/**
 * The `prompt` values Gatehouse understands (OpenID Connect Core 1.0 §3.1.2.1, whose meaning
 * Gatehouse follows for OAuth requests): `none` shows no page at all, `login` asks for the
 * password again, `consent` asks for consent even when it is remembered. `select_account` is not
 * offered (Gatehouse has no account chooser): an OpenID Connect request with it is answered
 * `account_selection_required` before this parse (docs/decisions/0134), an OAuth one `invalid_request`.
 */
export type Prompt = 'none' | 'login' | 'consent';

/**
 * OIDC Core §3.1.2.1 `prompt` values Gatehouse supports (`select_account` is not).
 *
 * @example
 * const promptValuesSupported = [...PROMPT_VALUES]; // the discovery document's prompt_values_supported
 */
export const PROMPT_VALUES: readonly Prompt[] = Object.freeze(['none', 'login', 'consent']);

/**
 * Parses the `prompt` parameter, a space-delimited list (OIDC Core §3.1.2.1). An absent or empty
 * one is no prompt. An unknown value, or `none` with any other value, is an error to answer with
 * `invalid_request`.
 *
 * @example
 * parsePrompt('login consent'); // { prompts: ['login', 'consent'] }
 * parsePrompt('none login');    // { problem: 'prompt=none cannot be combined with other values.' }
 */
export function parsePrompt(value: string | undefined): { prompts: Prompt[] } | { problem: string } {
  const values = [...new Set((value ?? '').split(' ').filter((item) => item !== ''))];
  const unknown = values.find((item) => !(PROMPT_VALUES as readonly string[]).includes(item));
  if (unknown !== undefined) return { problem: `The prompt value ${JSON.stringify(unknown)} is not supported (none, login, consent).` };
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (values.includes('none') && values.length > 1) return { problem: 'prompt=none cannot be combined with other values.' };
  return { prompts: values as Prompt[] };
}
