/** At most this many UTF-16 units of a foreign text are quoted in an error message (4 KiB). */
export const MAX_QUOTED_TEXT = 4096;

/**
 * `text` cut to {@link MAX_QUOTED_TEXT} units, marked with `...` when cut, so that a webhook's
 * answer quoted in an error message stays bounded.
 */
export function boundedText(text: string, max: number = MAX_QUOTED_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
