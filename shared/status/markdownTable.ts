// Where a generated table sits in a markdown document: its header line and the table lines
// after it, so a generator can replace it and a test can compare it.
export function markdownTableIn(doc: string, header: string): { start: number; end: number } | undefined {
  const lines = doc.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) return undefined;
  let end = start;
  while (end < lines.length && lines[end]?.startsWith('|')) end += 1;
  return { start, end };
}
