/**
 * Quoting text a peer sent (an error channel, a tar entry name, a Status field) into an
 * error message or a log line, bounded: a hostile or broken server decides how long that
 * text is, and a message or log line must stay readable (and a string at all: V8 refuses
 * strings over 2^29 - 24 characters).
 */

/** Most bytes of peer-sent text quoted into an error message or a log line. */
export const MAX_EXCERPT_BYTES = 4096;

/** Options of {@link textExcerpt}. */
export interface TextExcerptOptions {
  /**
   * The size in bytes of the whole text `content` is the start of (e.g. a channel whose
   * rest was counted and dropped); default: `content`'s own size.
   */
  readonly totalBytes?: number;
  /** Quote the shown text as a JSON string (control characters escaped). */
  readonly quoted?: boolean;
}

/**
 * `content` (UTF-8 bytes or a string) for an error message or log line: whole when it is at
 * most {@link MAX_EXCERPT_BYTES} of UTF-8, else its first {@link MAX_EXCERPT_BYTES} bytes (a
 * character cut in two is left out) followed by `… (N bytes in all)`. Invalid UTF-8 shows
 * as U+FFFD. Quoted, the JSON string holds at most {@link MAX_EXCERPT_BYTES} characters
 * between its quotes (escapes included: control bytes would otherwise grow sixfold), the
 * size following when that cut it short.
 */
export function textExcerpt(
  content: Uint8Array | string,
  options: TextExcerptOptions = {},
): string {
  // A string keeps at most MAX_EXCERPT_BYTES characters: they hold at least as many bytes.
  const bytes =
    typeof content === "string" ? Buffer.from(content.slice(0, MAX_EXCERPT_BYTES)) : content;
  const totalBytes =
    options.totalBytes ??
    (typeof content === "string" ? Buffer.byteLength(content) : content.length);
  let cut = totalBytes > MAX_EXCERPT_BYTES;
  // In streaming mode the decoder holds back (and here drops) a sequence cut at the end.
  let shown = new TextDecoder().decode(bytes.subarray(0, MAX_EXCERPT_BYTES), { stream: cut });
  if (options.quoted === true) {
    const escaped = jsonEscaped(shown, MAX_EXCERPT_BYTES);
    cut ||= escaped.cut;
    shown = `"${escaped.text}"`;
  }
  return cut ? `${shown}… (${totalBytes} bytes in all)` : shown;
}

/** `text` escaped as in a JSON string (no quotes), as many whole characters as fit `maxChars`. */
function jsonEscaped(text: string, maxChars: number): { text: string; cut: boolean } {
  const whole = JSON.stringify(text).slice(1, -1);
  if (whole.length <= maxChars) return { text: whole, cut: false };
  let escaped = "";
  for (const character of text) {
    const next = JSON.stringify(character).slice(1, -1);
    if (escaped.length + next.length > maxChars) return { text: escaped, cut: true };
    escaped += next;
  }
  return { text: escaped, cut: false };
}
