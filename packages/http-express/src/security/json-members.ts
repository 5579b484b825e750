/** body-parser's error type for a JSON body that names a member twice (`refuseRepeatedMembers`). */
export const REPEATED_MEMBER = 'entity.member.repeated';

/**
 * The first member name a JSON text repeats within one object, compared as parsed (`"a"` and
 * `"\u0061"` are one name); undefined when none is, or when the text is not JSON (the parser then
 * says so). RFC 8259 §4: names SHOULD be unique, and parsers differ on which of two wins — a
 * proxy that reads the first would check another request than the one served.
 *
 * @example
 * repeatedJsonMember('{"name":"a","name":"b"}'); // 'name'
 */
export function repeatedJsonMember(text: string): string | undefined {
  // Per open object, the names seen; null for an array.
  const open: Array<Set<string> | null> = [];
  let nameExpected = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const names = open.at(-1);
      if (nameExpected && names) {
        let name: unknown;
        try {
          name = JSON.parse(text.slice(index, end + 1));
        } catch {
          return undefined;
        }
        if (typeof name !== 'string') return undefined;
        if (names.has(name)) return name;
        names.add(name);
      }
      nameExpected = false;
      index = end;
    } else if (character === '{') {
      open.push(new Set());
      nameExpected = true;
    } else if (character === '[') {
      open.push(null);
      nameExpected = false;
    } else if (character === '}' || character === ']') {
      open.pop();
      nameExpected = false;
    } else if (character === ',') {
      nameExpected = open.at(-1) !== null && open.length > 0;
    }
  }
  return undefined;
}

/**
 * `express.json`'s `verify`: refuses a body that names a member twice in one object (design card:
 * duplicate parameters refused), as body-parser's error of type `REPEATED_MEMBER`.
 *
 * @example
 * express.json({ verify: refuseRepeatedMembers });
 */
export function refuseRepeatedMembers(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (repeatedJsonMember(body.toString(encoding === 'utf-8' || encoding === 'utf8' ? 'utf8' : (encoding as BufferEncoding))) === undefined) return;
  throw Object.assign(new Error('The body names a member twice.'), { type: REPEATED_MEMBER, status: 400 });
}
