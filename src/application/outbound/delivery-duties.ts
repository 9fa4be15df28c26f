import type { WebhookTransport } from '../../adapters/webhooks/transport.ts';
import type { WakeableDuty } from '../kernel/periodic-duty.ts';
import { auditPushDuty, type AuditPushPorts, type AuditPushSettings } from './audit-sink-push.duty.ts';
import { batchBodies } from './batch-bodies.ts';
import { webhookDispatchDuty, type DispatchPorts, type WebhookSettings } from './webhook-dispatch.duty.ts';

/**
 * The webhook dispatcher and the audit push, each waking the other: a batch offered goes out at once, and a batch
 * delivered makes room for the next. The push prepares each batch's body, which the dispatcher takes.
 */
export function deliveryDuties(
  deps: DispatchPorts & AuditPushPorts,
  webhooks: WebhookSettings,
  auditExport: AuditPushSettings,
  transport: WebhookTransport,
): [WakeableDuty, WakeableDuty] {
  const bodies = batchBodies(deps);
  const dispatch = webhookDispatchDuty(deps, webhooks, transport, bodies, () => push.wake());
  const push = auditPushDuty(deps, auditExport, () => dispatch.wake(), bodies);
  return [dispatch, push];
}
