// Every condition message must fit the API's limit (32,768 on metav1.Condition). A message
// that would not fit keeps its start, where the cause and the field are named, and says how
// much was cut, so the write succeeds and the runtime is never wedged by its own report.

export const MESSAGE_LIMIT_BYTES = 32_768;

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The message as is when it fits; else its longest start that fits with a note of the cut. */
export function fitMessage(text: string, limit = MESSAGE_LIMIT_BYTES): string {
  const total = byteLength(text);
  if (total <= limit) return text;
  const chars = Array.from(text);
  // The note's own length depends on the count it reports; reserve room for the widest count.
  const note = (cut: number): string => ` … (${cut} more bytes cut)`;
  const room = limit - byteLength(note(total));
  let kept = '';
  let used = 0;
  for (const c of chars) {
    const n = byteLength(c);
    if (used + n > room) break;
    kept += c;
    used += n;
  }
  return `${kept}${note(total - used)}`;
}
