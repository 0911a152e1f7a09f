/**
 * Where Go's `encoding/base64` StdEncoding (padded, not strict) refuses a string, which is
 * how kube-apiserver's JSON decoding reads every `[]byte` field (a Secret's `data`, a
 * ConfigMap's `binaryData`): `illegal base64 data at input byte N`
 * (`src/encoding/base64/base64.go`, CorruptInputError). Line breaks (`\r`, `\n`) are
 * skipped anywhere, `=` padding is only allowed to complete the last 4-character group, and
 * the offset counts UTF-8 bytes of the input.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD = 0x3d; // "="
const CR = 0x0d;
const LF = 0x0a;
const alphabet = new Set([...ALPHABET].map((c) => c.charCodeAt(0)));

function skipLineBreaks(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && (bytes[i] === CR || bytes[i] === LF)) i++;
  return i;
}

/**
 * The byte offset Go's StdEncoding reports for `value` (its `CorruptInputError`), or
 * `undefined` when it decodes.
 */
export function base64CorruptOffset(value: string): number | undefined {
  const bytes = Buffer.from(value, "utf8");
  let si = 0;
  while (si < bytes.length) {
    // One group of four alphabet characters; `j` counts those read so far.
    for (let j = 0; j < 4;) {
      if (si === bytes.length) return j === 0 ? undefined : si - j;
      const b = bytes[si++] as number;
      if (alphabet.has(b)) {
        j++;
        continue;
      }
      if (b === CR || b === LF) continue;
      if (b !== PAD || j < 2) return si - 1;
      if (j === 2) {
        // A group of two characters needs "==": the second "=" must follow.
        si = skipLineBreaks(bytes, si);
        if (si === bytes.length) return bytes.length;
        if (bytes[si] !== PAD) return si - 1;
        si++;
      }
      si = skipLineBreaks(bytes, si);
      return si < bytes.length ? si : undefined;
    }
  }
  return undefined;
}

/** Go's `illegal base64 data at input byte N` for `value`, or `undefined` when it decodes. */
export function base64DecodingProblem(value: string): string | undefined {
  const offset = base64CorruptOffset(value);
  return offset === undefined ? undefined : `illegal base64 data at input byte ${offset}`;
}
