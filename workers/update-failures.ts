// What an error from Update-With-Start proves about the update it carried, judged by the SDK's
// error classes and gRPC status codes (never by message text): whether the update can have run,
// and so whether sending it again is safe.
import {
  isGrpcServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

/** gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html) the service answers with. */
export const GrpcCode = {
  CANCELLED: 1, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, ALREADY_EXISTS: 6, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14,
} as const;

export type UpdateFailureKind =
  /** The server proves the workflow never accepted the update: send it again. */
  | 'never-ran'
  /** The service is busy or out of reach: the same update id sent again joins the first if it got there. */
  | 'busy'
  /** The workflow's validator refused the update's arguments. */
  | 'refused'
  /** The update may have run but gave no answer: its run ended first, or the deadline passed. */
  | 'no-answer'
  /** Anything else (a misconfigured namespace, a bug): not worth repeating now. */
  | 'unavailable';

export interface UpdateFailure {
  kind: UpdateFailureKind;
  /** What the SDK or the server said, for the log and (for 'refused') the client. */
  detail: string;
}

/**
 * Failures the Temporal server writes itself (update/errors_failures.go): `UnprocessedUpdate` when
 * a worker completed the workflow task that carried the update without accepting or rejecting it
 * (the server rejects it then; it never ran), `AcceptedUpdateCompletedWorkflow` when the run ended
 * after accepting it and before it finished.
 */
const SERVER_NEVER_RAN = new Set(['UnprocessedUpdate']);
const SERVER_NO_ANSWER = new Set(['AcceptedUpdateCompletedWorkflow']);

function grpcCode(err: unknown): number | null {
  if (isGrpcServiceError(err)) return err.code;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return isGrpcServiceError(cause) ? cause.code : null;
}

function serverFailureType(cause: unknown): string | null {
  if (!(cause instanceof ApplicationFailure)) return null;
  // (The proto failure's source tells the server's own failures from ones a workflow threw.)
  return cause.failure?.source === 'Server' ? (cause.type ?? null) : null;
}

export function classifyUpdateFailure(err: unknown): UpdateFailure {
  const detail = (err as Error | null)?.message ?? String(err);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause;
    const serverType = serverFailureType(cause);
    const causeMessage = cause?.message ?? detail;
    if (serverType && SERVER_NEVER_RAN.has(serverType)) return { kind: 'never-ran', detail: causeMessage };
    if (serverType && SERVER_NO_ANSWER.has(serverType)) return { kind: 'no-answer', detail: causeMessage };
    if (serverType) return { kind: 'unavailable', detail: causeMessage };
    // The workflow's handlers answer refusals as outcomes; only a validator fails the update.
    return { kind: 'refused', detail: causeMessage };
  }
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return { kind: 'no-answer', detail };
  // (The SDK turns NOT_FOUND and ALREADY_EXISTS outside a multi-operation failure into these.)
  if (err instanceof WorkflowNotFoundError) return { kind: 'never-ran', detail };
  if (err instanceof WorkflowExecutionAlreadyStartedError) return { kind: 'busy', detail };
  switch (grpcCode(err)) {
    // Aborted before acceptance by a closing run (NOT_FOUND), refused while the workflow task
    // fails or a limit holds (FAILED_PRECONDITION): the update never reached the workflow.
    case GrpcCode.NOT_FOUND:
    case GrpcCode.FAILED_PRECONDITION:
      return { kind: 'never-ran', detail };
    case GrpcCode.UNAVAILABLE:
    case GrpcCode.RESOURCE_EXHAUSTED:
    case GrpcCode.ABORTED:
    case GrpcCode.ALREADY_EXISTS:
      return { kind: 'busy', detail };
    case GrpcCode.DEADLINE_EXCEEDED:
    case GrpcCode.CANCELLED:
      return { kind: 'no-answer', detail };
    default:
      return { kind: 'unavailable', detail };
  }
}

/** Kinds after which the same update is sent again (within the caller's retry budget). */
export function worthRetrying(kind: UpdateFailureKind): boolean {
  return kind === 'never-ran' || kind === 'busy';
}
