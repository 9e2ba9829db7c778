// Makes sure the namespace knows the workflows' search attributes before the worker
// takes work: a workflow that sets an unknown attribute would fail every workflow task.
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { PULL_SEARCH_ATTRIBUTE_KEYS, QUEUE_SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes.js';
import { WEBHOOK_SEARCH_ATTRIBUTE_KEYS } from '../workflows/webhook-messages.js';
import { connectionOptions, type TemporalConnectionSettings } from './temporal-connection.js';

/** Every search attribute the workflows set: the pull requests' and the webhook deliveries'. */
export const SEARCH_ATTRIBUTE_KEYS = [...PULL_SEARCH_ATTRIBUTE_KEYS, ...QUEUE_SEARCH_ATTRIBUTE_KEYS, ...WEBHOOK_SEARCH_ATTRIBUTE_KEYS];

/** temporal.api.enums.v1.IndexedValueType numbers of the types the attributes use. */
const INDEXED_TYPE: Record<string, number> = { KEYWORD: 2, INT: 3 };

/** `temporal operator search-attribute create` arguments an operator can run by hand. */
export function searchAttributeCommand(namespace: string): string {
  const flags = SEARCH_ATTRIBUTE_KEYS.map((k) => `--name ${k.name} --type ${TypedSearchAttributes.toMetadataType(k.type)}`).join(' ');
  return `temporal operator search-attribute create --namespace ${namespace} ${flags}`;
}

export async function ensureSearchAttributes(settings: TemporalConnectionSettings, namespace: string): Promise<void> {
  const connection = await Connection.connect({ ...connectionOptions(settings), connectTimeout: '5 seconds' });
  try {
    const known = await connection.operatorService.listSearchAttributes({ namespace });
    const defined = new Set([...Object.keys(known.customAttributes ?? {}), ...Object.keys(known.systemAttributes ?? {})]);
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !defined.has(k.name));
    if (missing.length === 0) return;
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_TYPE[k.type]!])),
      });
    } catch (err) {
      // Several workers starting at once race to add them: the loser finds them there.
      const again = await connection.operatorService.listSearchAttributes({ namespace });
      if (missing.every((k) => k.name in (again.customAttributes ?? {}))) return;
      throw new Error(`the namespace lacks the search attributes ${missing.map((k) => k.name).join(', ')} and they could not be added `
        + `(${(err as Error).message}); create them with: ${searchAttributeCommand(namespace)}`);
    }
  } finally {
    await connection.close();
  }
}
