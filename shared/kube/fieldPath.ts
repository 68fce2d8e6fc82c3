// Reading a field deep inside an object the control plane does not own the schema of (an Argo CD
// Application's status): undefined wherever the path breaks off.
export function fieldAt(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function stringAt(obj: unknown, path: string): string | undefined {
  const v = fieldAt(obj, path);
  return typeof v === 'string' ? v : undefined;
}
