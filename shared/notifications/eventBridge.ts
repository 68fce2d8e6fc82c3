// Notifications on an EventBridge bus (NTF-1). The SDK reads region, endpoint and credentials
// from the environment, as the other AWS clients do; tests point it at moto. The client module is
// loaded on first use, so a function that sends nothing never pays for it at cold start.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { awsErrorCause } from '../awsErrorCause.ts';
import { awsClientOptions } from '../awsRequestTimeouts.ts';
import type { Notice } from './derive.ts';
import { NOTICE_SOURCE } from './kinds.ts';
import type { NotificationSink, SinkResult } from './sink.ts';

/** PutEvents takes at most ten entries per call. */
const BATCH = 10;

let client: EventBridgeClient | undefined;

export function eventBridgeSink(bus: string): NotificationSink {
  return {
    called: `EventBridge bus ${bus}`,
    put: async (notices): Promise<SinkResult> => {
      const { EventBridgeClient: Client, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      client ??= new Client(awsClientOptions());
      try {
        for (let i = 0; i < notices.length; i += BATCH) {
          const entries = notices.slice(i, i + BATCH).map((n: Notice) => ({
            EventBusName: bus,
            Source: NOTICE_SOURCE,
            DetailType: n.detailType,
            Detail: JSON.stringify(n.detail),
            Time: new Date(n.detail.at),
          }));
          const out = await client.send(new PutEventsCommand({ Entries: entries }));
          const failed = out.FailedEntryCount ?? 0;
          // Some entries taken, some not: all are sent again with their keys, so receivers drop the repeats.
          if (failed > 0)
            return {
              ok: false,
              cause:
                `EventBridge refused ${failed} of ${entries.length} entries ` +
                `(${out.Entries?.find((e) => e.ErrorCode)?.ErrorCode ?? 'no code'})`,
            };
        }
        return { ok: true };
      } catch (err) {
        return { ok: false, cause: awsErrorCause(err) };
      }
    },
  };
}
