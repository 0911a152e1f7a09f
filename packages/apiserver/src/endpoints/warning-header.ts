/**
 * The `Warning` response headers of a request's warnings, as kube-apiserver's warning
 * recorder writes them (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go`):
 * duplicates dropped; past {@link WARNING_TOTAL_RUNES} runes in all, every text truncated to
 * {@link WARNING_ITEM_RUNES} runes, and warnings beyond the total omitted; a text that cannot
 * be a header (a control character, or not valid Unicode) dropped, as `NewWarningHeader`
 * (`staging/src/k8s.io/apimachinery/pkg/util/net/http.go`) refuses it.
 */

/** Runes of warning text after which the recorder starts truncating (kube: 4 * 1024). */
export const WARNING_TOTAL_RUNES = 4 * 1024;
/** Runes each warning text is cut to once truncating (kube: 256). */
export const WARNING_ITEM_RUNES = 256;

/**
 * Whether `text` is valid Unicode (no lone surrogate) without control characters (Go's
 * `unicode.IsControl`: C0, DEL, C1).
 */
function sendable(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/**
 * The header value `299 - "text"` for one warning, or undefined when the text cannot be sent.
 * The text is quoted as Go's `makeQuotedString` does (only `"` and `\` escaped) and returned as
 * its UTF-8 bytes in a Latin-1 string, which Node writes byte for byte: the header carries
 * UTF-8 exactly as Go's server sends it, and never makes `setHeader` throw.
 */
export function warningHeaderValue(text: string): string | undefined {
  if (!sendable(text)) return undefined;
  const quoted = `299 - "${text.replace(/["\\]/g, "\\$&")}"`;
  return Buffer.from(quoted, "utf8").toString("latin1");
}

function runes(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function truncate(text: string): string {
  return [...text].slice(0, WARNING_ITEM_RUNES).join("");
}

/** The `Warning` header values for `texts`, in order (see the module comment). */
export function warningHeaderValues(texts: readonly string[]): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const original of texts) {
    if (original === "" || recorded.has(original)) continue;
    if (truncating && written >= WARNING_TOTAL_RUNES) break;
    recorded.add(original);
    ordered.push(original);
    let text = original;
    let length = runes(text);
    if (truncating && length > WARNING_ITEM_RUNES) {
      text = truncate(text);
      length = WARNING_ITEM_RUNES;
    }
    const header = warningHeaderValue(text);
    if (header === undefined) continue;
    if (truncating || written + length <= WARNING_TOTAL_RUNES) {
      written += length;
      headers.push(header);
      continue;
    }
    // Over the total: replay every warning so far, truncated.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of ordered) {
      const cut = runes(earlier) > WARNING_ITEM_RUNES ? truncate(earlier) : earlier;
      const value = warningHeaderValue(cut);
      if (value === undefined) continue;
      written += runes(cut);
      headers.push(value);
    }
  }
  return headers;
}
