// Where notifications go: EventBridge when the deployment names a bus (AICR_EVENT_BUS), else the
// log, as in local mode. A sink either takes every notification or says it took none, so the
// notify step keeps its record as it was and sends the same ones, with the same keys, again.
import type { Logger } from '../observability/log.ts';
import type { Notice } from './derive.ts';
import { NOTICE_SOURCE } from './kinds.ts';

export type SinkResult = { readonly ok: true } | { readonly ok: false; readonly cause: string };

export interface NotificationSink {
  /** Names where notifications go, for the log. */
  readonly called: string;
  put(notices: readonly Notice[]): Promise<SinkResult>;
}

/** One log line per notification, with its whole detail. */
export function logSink(log: Logger): NotificationSink {
  return {
    called: 'the log',
    put: (notices) => {
      for (const n of notices)
        log.info('notification', {
          source: NOTICE_SOURCE,
          detailType: n.detailType,
          kind: n.kind,
          key: n.detail.key,
          detail: JSON.stringify(n.detail),
        });
      return Promise.resolve({ ok: true });
    },
  };
}
