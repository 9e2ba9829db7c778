// The HTTP request of one delivery, as Gitea's newDefaultRequest and addDefaultHeaders make it: the
// payload as JSON or as a `payload` form field, and the Gitea, Gogs and GitHub headers, signed with
// HMAC-SHA256 (and SHA-1 for X-Hub-Signature) of the JSON payload under the hook's secret.
import { createHmac } from 'node:crypto';
import { headerEvent, type HookEventType } from './events.js';

export interface DeliveryRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface DeliveryTarget {
  url: string;
  contentType: 'json' | 'form';
  /** repository, organization or user (X-Gitea-Hook-Installation-Target-Type). */
  targetType: string;
  secret: string;
  /** The Authorization header to send; recorded masked. */
  authorization: string;
}

/** Go's url.QueryEscape, which url.Values.Encode uses for the form body. */
function queryEscape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** What is sent for a payload: the JSON itself, or a form with the JSON in its `payload` field. */
export function requestBody(contentType: 'json' | 'form', payload: string): string {
  return contentType === 'form' ? `payload=${queryEscape(payload)}` : payload;
}

export function deliveryRequest(target: DeliveryTarget, event: HookEventType, uuid: string, payload: string): DeliveryRequest {
  const sha256 = target.secret ? createHmac('sha256', target.secret).update(payload).digest('hex') : '';
  const sha1 = target.secret ? createHmac('sha1', target.secret).update(payload).digest('hex') : '';
  const name = headerEvent(event);
  const headers: Record<string, string> = {
    'Content-Type': target.contentType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
    'X-Gitea-Delivery': uuid,
    'X-Gitea-Event': name,
    'X-Gitea-Event-Type': event,
    'X-Gitea-Signature': sha256,
    'X-Gitea-Hook-Installation-Target-Type': target.targetType,
    'X-Gogs-Delivery': uuid,
    'X-Gogs-Event': name,
    'X-Gogs-Event-Type': event,
    'X-Gogs-Signature': sha256,
    'X-Hub-Signature': `sha1=${sha1}`,
    'X-Hub-Signature-256': `sha256=${sha256}`,
    'X-GitHub-Delivery': uuid,
    'X-GitHub-Event': name,
    'X-GitHub-Event-Type': event,
    'X-GitHub-Hook-Installation-Target-Type': target.targetType,
  };
  if (target.authorization) headers.Authorization = target.authorization;
  return {
    url: target.url,
    method: 'POST',
    headers,
    body: requestBody(target.contentType, payload),
  };
}

/** The headers as a delivery record keeps them: the Authorization header masked, as Gitea records it. */
export function recordedHeaders(headers: Record<string, string>): Record<string, string> {
  return headers.Authorization === undefined ? headers : { ...headers, Authorization: '******' };
}

/** A URL as it may be shown: any password in it is masked. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '******';
    return u.toString();
  } catch {
    return url;
  }
}
