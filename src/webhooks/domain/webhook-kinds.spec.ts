import type { RecordedEvent } from '../../platform/event-store/event-store.js';
import { KIND_OF_SOURCE, WEBHOOK_KINDS, WebhookSourceEvent, webhookPayload } from './webhook-kinds.js';
import { readRewardValidation, rewardValidationRequest } from '../../sales/domain/reward-validation.js';
import { readShareInstructions, shareInstructionsRequest } from '../../shares/domain/share-payload.js';

const at = new Date('2026-05-01T08:00:00.000Z');
function recorded(event: WebhookSourceEvent): RecordedEvent<WebhookSourceEvent> {
  return { id: 'evt-1', ...event, metadata: { merchantId: 1 }, streamName: 's', revision: 0, position: 5n, createdAt: at } as RecordedEvent<WebhookSourceEvent>;
}
const share = {
  shareId: 11,
  merchantId: 1,
  widgetId: 2,
  customerId: 3,
  referralCode: 'AbC123',
  channel: 'email' as const,
  message: 'Try it',
  rewardEmailAddress: 'ada@example.com',
  emailRecipients: ['bob@example.com'],
  newsletterOptIn: false,
  sendReminder: true,
  ipAddress: '203.0.113.9',
  linkParameters: null,
  createdAt: at.toISOString(),
};
const facts = {
  rewardId: 21,
  merchantId: 1,
  conversionId: 31,
  purchaseId: 41,
  widgetId: 2,
  advocateCustomerId: 3,
  advocateEmailAddress: 'ada@example.com',
  rewardType: 'fixed_cash',
  amount: 10,
};

describe('webhook kinds and payloads', () => {
  it('maps every source event type to a known kind', () => {
    for (const kind of Object.values(KIND_OF_SOURCE)) expect(WEBHOOK_KINDS).toContain(kind);
    expect(new Set(Object.values(KIND_OF_SOURCE))).toEqual(new Set(WEBHOOK_KINDS));
  });

  it('wraps the data in the envelope with the source event id and time', () => {
    const payload = webhookPayload(recorded({ type: 'ShareCreated', data: share }), { canSeeRecipients: true });
    expect(payload).toEqual({
      id: 'evt-1',
      type: 'share.created',
      created_at: at.toISOString(),
      data: {
        share_id: 11,
        widget_id: 2,
        customer_id: 3,
        referral_code: 'AbC123',
        channel: 'email',
        message: 'Try it',
        reward_email_address: 'ada@example.com',
        email_recipients: ['bob@example.com'],
        newsletter_opt_in: false,
        send_reminder: true,
        ip_address: '203.0.113.9',
        link_parameters: null,
        created_at: at.toISOString(),
      },
    });
  });

  it('leaves email recipients out unless the merchant may see them', () => {
    const payload = webhookPayload(recorded({ type: 'ShareCreated', data: share }), { canSeeRecipients: false });
    expect(payload.data).not.toHaveProperty('email_recipients');
  });

  it('sends a social share (browser routes) as share.created with its channel and no recipients, even to a merchant that may see them', () => {
    const social = { ...share, channel: 'facebook' as const, message: null, emailRecipients: [], sendReminder: false, origin: 'customer_token' as const };
    const payload = webhookPayload(recorded({ type: 'ShareCreated', data: social }), { canSeeRecipients: true });
    expect(payload.type).toBe('share.created');
    expect(payload.data).toMatchObject({ share_id: 11, channel: 'facebook', referral_code: 'AbC123', message: null, send_reminder: false });
    expect(payload.data).not.toHaveProperty('email_recipients');
  });

  it('tells automatic from manual reward decisions', () => {
    const manual = webhookPayload(
      recorded({ type: 'RewardManuallyRejected', data: { ...facts, by: 'ops@shop.example', reason: 'duplicate order', decidedAt: at.toISOString() } }),
      { canSeeRecipients: false },
    );
    expect(manual.type).toBe('reward.rejected');
    expect(manual.data).toMatchObject({
      reward_id: 21,
      decision: 'manual',
      decided_by: 'ops@shop.example',
      reasons: ['manually_rejected'],
      reason: 'duplicate order',
    });
    const automatic = webhookPayload(recorded({ type: 'RewardApproved', data: { ...facts, evaluatedAt: at.toISOString() } }), { canSeeRecipients: false });
    expect(automatic).toMatchObject({ type: 'reward.approved', data: { decision: 'automatic', decided_by: null, amount: 10 } });
  });

  it("gives a rejection's reasons as codes, as the reward's rejected_reasons, and the decider's words as reason", () => {
    const data = (event: WebhookSourceEvent) => webhookPayload(recorded(event), { canSeeRecipients: false }).data;
    const decidedAt = at.toISOString();
    // By hand without a reason: the code still says why it was rejected.
    expect(data({ type: 'RewardManuallyRejected', data: { ...facts, by: 'ops@shop.example', reason: null, decidedAt } })).toMatchObject({
      reasons: ['manually_rejected'],
      reason: null,
    });
    expect(data({ type: 'RewardRejected', data: { ...facts, reasons: ['same_email'], evaluatedAt: decidedAt } })).toMatchObject({
      decision: 'automatic',
      reasons: ['same_email'],
      reason: null,
    });
    expect(
      data({ type: 'RewardRejected', data: { ...facts, reasons: ['validation_callback_rejected'], note: 'known fraudster', evaluatedAt: decidedAt } }),
    ).toMatchObject({
      reasons: ['validation_callback_rejected'],
      reason: 'known fraudster',
    });
  });
});

describe('client-API contract', () => {
  it('builds the documented request bodies', () => {
    expect(shareInstructionsRequest(share, { canSeeRecipients: false })).toMatchObject({ type: 'share_instructions', share: { share_id: 11 } });
    expect(rewardValidationRequest(facts)).toEqual({
      type: 'reward_validation',
      reward: {
        reward_id: 21,
        conversion_id: 31,
        purchase_id: 41,
        widget_id: 2,
        advocate_customer_id: 3,
        advocate_email_address: 'ada@example.com',
        reward_type: 'fixed_cash',
        amount: 10,
      },
    });
  });

  it('reads share instructions: block, replace_message, and allow for anything else', () => {
    expect(readShareInstructions({ action: 'block', message: 'no' })).toEqual({ action: 'block', reason: 'no' });
    expect(readShareInstructions({ action: 'replace_message', message: 'Hi' })).toEqual({ action: 'replace_message', message: 'Hi' });
    expect(readShareInstructions({ action: 'replace_message' })).toEqual({ action: 'allow' });
    expect(readShareInstructions(null)).toEqual({ action: 'allow' });
    expect(readShareInstructions({ action: 'allow' })).toEqual({ action: 'allow' });
  });

  it('reads reward validation: approved unless approved is false', () => {
    expect(readRewardValidation({ approved: false, reason: 'refunded' })).toEqual({ approved: false, reason: 'refunded' });
    expect(readRewardValidation({ approved: 'false' })).toEqual({ approved: true });
    expect(readRewardValidation(null)).toEqual({ approved: true });
  });
});
