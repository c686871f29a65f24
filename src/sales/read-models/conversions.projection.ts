/** The conversions read model (spec §2.3 Conversion), with the outcome of its reward. */
import { lowerCased } from '../../platform/personal-data/personal-fields.js';
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { RewardEvent } from '../domain/reward-events.js';
import type { RewardNotOffered } from '../domain/reward.js';
import { ConversionAttributed, ConversionChannel, ConversionSource } from '../domain/conversion-events.js';

export interface ConversionDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  widget_id: number;
  purchase_id: number;
  referral_code: string;
  coupon_code: string | null;
  channel: ConversionChannel;
  source: ConversionSource;
  advocate_customer_id: number | null;
  advocate_email_address: string | null;
  advocate_email_lc: string | null;
  friend_customer_id: number | null;
  friend_email_lc: string | null;
  /** False until a reward decision exists (none ever, for a widget without a reward). */
  reward_evaluated: boolean;
  reward_status: 'pending' | 'approved' | 'rejected' | null;
  last_modified_at: string;
}

export const conversionsCollection: CollectionDef = {
  name: 'conversions',
  indexes: [
    ['merchant_id'],
    ['merchant_id', 'widget_id'],
    ['merchant_id', 'advocate_customer_id'],
    ['merchant_id', 'advocate_email_lc'],
    ['merchant_id', 'referral_code'],
    ['reward_evaluated'],
  ],
  // The advocate and the friend each by their own fields: erasing one leaves the other's.
  personal: {
    byAddress: [
      { match: 'advocate_email_lc', erase: ['advocate_email_address', 'advocate_email_lc'] },
      { match: 'friend_email_lc', erase: ['friend_email_lc'] },
    ],
    byCustomer: [
      { match: 'advocate_customer_id', erase: ['advocate_email_address', 'advocate_email_lc'] },
      { match: 'friend_customer_id', erase: ['friend_email_lc'] },
    ],
  },
};

type ConversionEvent = ConversionAttributed | RewardEvent | RewardNotOffered;

/** Codes whose source object is kept; past this many the cache starts over (the documents keep theirs). */
const LINK_SOURCES = 50_000;
let linkSources = new Map<string, ConversionSource>();

/**
 * One source object per referral code, shared by every conversion through that link: a
 * conversion's `source` is most often a link's, and a copy per conversion was 40 bytes of the
 * roughly 1,160 that an attributed purchase holds in the embedded read models. Documents are
 * never changed once put, so sharing it is invisible (the MongoDB adapter stores each its own).
 */
function linkSource(code: string): ConversionSource {
  let source = linkSources.get(code);
  if (source === undefined) {
    if (linkSources.size >= LINK_SOURCES) linkSources = new Map();
    source = { type: 'referral_link', code };
    linkSources.set(code, source);
  }
  return source;
}

const STATUS: Record<RewardEvent['type'], ConversionDoc['reward_status']> = {
  RewardPending: 'pending',
  RewardApproved: 'approved',
  RewardRejected: 'rejected',
  RewardManuallyApproved: 'approved',
  RewardManuallyRejected: 'rejected',
};

export const conversionsProjection = defineProjection<ConversionDoc, ConversionEvent>()({
  name: 'conversions',
  collection: conversionsCollection,
  handles: [
    'ConversionAttributed',
    'RewardPending',
    'RewardApproved',
    'RewardRejected',
    'RewardManuallyApproved',
    'RewardManuallyRejected',
    'RewardNotOffered',
  ],
  keys: (event) => [docKey(event.data.conversionId)],
  evolve(doc, event, key) {
    if (event.type === 'ConversionAttributed') {
      const d = event.data;
      return {
        _id: key,
        id: d.conversionId,
        merchant_id: d.merchantId,
        widget_id: d.widgetId,
        purchase_id: d.purchaseId,
        referral_code: d.referralCode,
        coupon_code: d.couponCode,
        channel: d.channel,
        source: d.source.type === 'referral_link' ? linkSource(d.source.code) : d.source,
        advocate_customer_id: d.advocateCustomerId,
        advocate_email_address: d.advocateEmailAddress,
        advocate_email_lc: lowerCased(d.advocateEmailAddress),
        friend_customer_id: d.friendCustomerId,
        friend_email_lc: lowerCased(d.friendEmailAddress),
        reward_evaluated: false,
        reward_status: null,
        created_at: d.createdAt,
        last_modified_at: d.createdAt,
      };
    }
    if (!doc) return null;
    // Evaluated, with nothing to give: the conversion itself does not change.
    if (event.type === 'RewardNotOffered') return { ...doc, reward_evaluated: true };
    const at = 'evaluatedAt' in event.data ? event.data.evaluatedAt : 'decidedAt' in event.data ? event.data.decidedAt : event.data.createdAt;
    return { ...doc, reward_evaluated: true, reward_status: STATUS[event.type], last_modified_at: at };
  },
});
