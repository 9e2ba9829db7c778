// One event's payload text, built from its outbox row when it is dispatched.
import type { HookEventRow } from '../../../db/hooks.js';
import type { HookEventType } from '../events.js';
import type { EventDetail } from '../outbox.js';
import { payloadText, type PayloadContext } from './context.js';
import { commentPayload, issuePayload, reviewPayload } from './issues.js';
import { createPayload, deletePayload, pushPayload } from './refs.js';
import { mergeGroupPayload } from './merge-group.js';
import { statusPayload } from './status.js';

export function eventDetail(row: HookEventRow): EventDetail {
  return JSON.parse(row.detail) as EventDetail;
}

async function payloadOf(pc: PayloadContext, row: HookEventRow): Promise<unknown> {
  const event = row.event as HookEventType;
  const d = eventDetail(row);
  switch (d.kind) {
    case 'issue': return issuePayload(pc, event, row.action, d, row.doer_id);
    case 'comment': return commentPayload(pc, event, row.action, d, row.doer_id);
    case 'review': return reviewPayload(pc, event, d);
    case 'status': return statusPayload(pc, d, row.doer_id);
    case 'merge_group': return mergeGroupPayload(pc, row.action, d, row.doer_id);
    case 'ref':
      if (event === 'create') return createPayload(pc, d, row.doer_id);
      if (event === 'delete') return deletePayload(pc, d, row.doer_id);
      return pushPayload(pc, d, row.doer_id);
    default: return null;
  }
}

/** The JSON text sent for the event; null when what it is about no longer exists. */
export async function buildPayloadText(pc: PayloadContext, row: HookEventRow): Promise<string | null> {
  const payload = await payloadOf(pc, row);
  return payload ? payloadText(payload) : null;
}
