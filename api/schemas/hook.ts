// Wire schemas for webhooks (Gitea's modules/structs/hook.go) and their deliveries (this service's
// extension: Gitea shows deliveries only in its web UI).
import Type from 'typebox';

const StringMap = (title?: string) => Type.Record(Type.String(), Type.String(), title ? { title } : {});

export const Hook = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  branch_filter: Type.String(),
  config: StringMap(),
  events: Type.Array(Type.String()),
  authorization_header: Type.String({ description: "the header's scheme only (`Bearer ******`): credentials are never shown" }),
  active: Type.Boolean(),
  updated_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'Hook' });

const HookTypes = ['gitea', 'gogs', 'forgejo'];

export const CreateHookOption = Type.Object({
  type: Type.String({ maxLength: 64, description: `one of ${HookTypes.join(', ')} (Gitea's chat types are refused: their messages are not built here)` }),
  config: StringMap('CreateHookOptionConfig'),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })),
  branch_filter: Type.Optional(Type.String({ maxLength: 4096 })),
  authorization_header: Type.Optional(Type.String({ maxLength: 4096 })),
  active: Type.Optional(Type.Boolean({ default: false })),
  name: Type.Optional(Type.String({ maxLength: 1024 })),
}, { title: 'CreateHookOption', description: '`config` needs `url` and `content_type` (json or form); `secret` signs each delivery and is never shown back.' });

export const EditHookOption = Type.Object({
  config: Type.Optional(StringMap()),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })),
  branch_filter: Type.Optional(Type.String({ maxLength: 4096 })),
  authorization_header: Type.Optional(Type.String({ maxLength: 4096 })),
  active: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 1024 })),
}, { title: 'EditHookOption', description: 'What the request leaves out is kept (Gitea resets `events` to push and clears `branch_filter` and `authorization_header`).' });

export const HookDelivery = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ description: 'X-Gitea-Delivery: the same on every attempt' }),
  event: Type.String({ description: 'X-Gitea-Event' }),
  event_type: Type.String({ description: 'X-Gitea-Event-Type' }),
  status: Type.String({ description: 'pending, delivered, or failed (refused for good or given up after the retry window)' }),
  redelivery: Type.Boolean(),
  attempts: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  last_attempt_at: Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, 'x-nullable': true }),
  next_attempt_at: Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, 'x-nullable': true, description: 'when a pending delivery is tried next' }),
  finished_at: Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, 'x-nullable': true }),
  duration_ms: Type.Unsafe<number | null>({ type: 'integer', nullable: true, 'x-nullable': true, description: 'of the last attempt' }),
  request: Type.Object({
    url: Type.String(),
    http_method: Type.String(),
    headers: StringMap(),
    body: Type.String(),
  }),
  response: Type.Unsafe<unknown>({
    type: 'object',
    nullable: true, 'x-nullable': true,
    description: 'the answer to the last attempt (body truncated), null when there was none',
    properties: { status: { type: 'integer' }, headers: { type: 'object', additionalProperties: { type: 'string' } }, body: { type: 'string' } },
  }),
  error: Type.Unsafe<string | null>({ type: 'string', nullable: true, 'x-nullable': true, description: 'why the last attempt got no answer, or was not made' }),
}, { title: 'HookDelivery' });
