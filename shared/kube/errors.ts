// Turns client-node failures into the control plane's error taxonomy. Only the HTTP status,
// the machine-readable reason and the names of failed fields survive: a server's message can
// echo the values it refused, so it never reaches a log or a condition.
import {
  ConflictError,
  ControlPlaneError,
  GoneError,
  KubeRequestError,
  ThrottledError,
  TransientError,
} from '../errors.ts';

interface StatusBody {
  readonly reason?: string;
  readonly details?: { readonly causes?: readonly { readonly field?: string }[]; readonly retryAfterSeconds?: number };
}

function parseBody(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusBody) : {};
}

function httpCode(err: unknown): number | undefined {
  // ApiException carries `code`; a watch that fails before streaming carries `statusCode`.
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  if (typeof e?.code === 'number') return e.code;
  return typeof e?.statusCode === 'number' ? e.statusCode : undefined;
}

function throttled(status: StatusBody, reason: string): ThrottledError {
  const seconds = status.details?.retryAfterSeconds;
  return new ThrottledError(
    `kubernetes api asked to retry later (http 429 ${reason})`,
    (typeof seconds === 'number' && seconds > 0 ? seconds : 1) * 1000,
  );
}

export function fromKubeError(err: unknown, identity?: string): Error {
  // Already in the taxonomy: an unreachable server or a spent deadline, named by the client.
  if (err instanceof ControlPlaneError) return err;
  const code = httpCode(err);
  if (code === undefined || code === 0) return new TransientError('kubernetes api unreachable');
  const status = parseBody((err as { body?: unknown }).body);
  const reason = status.reason ?? 'Unknown';
  if (code === 409) return new ConflictError(`write conflict (${reason}); re-reading`);
  if (code === 410) return new GoneError('watch resource version expired');
  if (code === 429) return throttled(status, reason);
  if (code >= 500) return new TransientError(`kubernetes api answered http ${code} ${reason}`);
  const fields = (status.details?.causes ?? []).flatMap((c) => (c.field ? [c.field] : []));
  return new KubeRequestError(code, reason, fields, identity);
}

export function isNotFound(err: unknown): boolean {
  return httpCode(err) === 404;
}
