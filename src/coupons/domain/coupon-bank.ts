/**
 * Coupon banks (spec §4.1 rules 3-4): banks of multi-use coupon codes a merchant uploads.
 * A code is handed to at most one referral code: the bank's stream serialises assignments,
 * so two concurrent requests cannot take the same available code.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';

export type CouponBankCreated = DomainEvent<'CouponBankCreated', { bankId: number; merchantId: number; name: string; codes: string[]; createdAt: string }>;
export type CouponCodesAdded = DomainEvent<'CouponCodesAdded', { bankId: number; merchantId: number; codes: string[]; addedAt: string }>;
export type CouponAssigned = DomainEvent<
  'CouponAssigned',
  { bankId: number; merchantId: number; couponCode: string; referralCode: string; assignedAt: string }
>;
export type CouponBankEvent = CouponBankCreated | CouponCodesAdded | CouponAssigned;

export type CouponBankCommand =
  | { type: 'CreateCouponBank'; bankId: number; merchantId: number; name: string; codes: string[]; now: Date }
  | { type: 'AddCouponCodes'; bankId: number; merchantId: number; codes: string[]; now: Date }
  /** `couponCode` undefined: take the first available code of the bank. */
  | { type: 'AssignCoupon'; bankId: number; merchantId: number; couponCode?: string; referralCode: string; now: Date };

export interface CouponBankState {
  merchantId: number | null;
  codes: string[];
  /** coupon code → referral code it is assigned to */
  assigned: Map<string, string>;
}

export const couponBankStream = (bankId: number) => `coupon-bank-${bankId}`;

function dedupe(codes: string[], existing: Iterable<string> = []): string[] {
  const seen = new Set(existing);
  const out: string[] = [];
  for (const code of codes) {
    if (!seen.has(code)) {
      seen.add(code);
      out.push(code);
    }
  }
  return out;
}

export const couponBankDecider: Decider<CouponBankCommand, CouponBankState, CouponBankEvent> = {
  initialState: () => ({ merchantId: null, codes: [], assigned: new Map() }),

  decide(command, state) {
    const at = command.now.toISOString();
    if (command.type === 'CreateCouponBank') {
      if (state.merchantId !== null) throw new ConflictError([`coupon bank ${command.bankId} already exists`]);
      return [{ type: 'CouponBankCreated', data: { bankId: command.bankId, merchantId: command.merchantId, name: command.name, codes: dedupe(command.codes), createdAt: at } }];
    }
    if (state.merchantId !== command.merchantId) throw new NotFoundError([`coupon bank ${command.bankId} not found`]);
    switch (command.type) {
      case 'AddCouponCodes': {
        const fresh = dedupe(command.codes, state.codes);
        return fresh.length ? [{ type: 'CouponCodesAdded', data: { bankId: command.bankId, merchantId: command.merchantId, codes: fresh, addedAt: at } }] : [];
      }
      case 'AssignCoupon': {
        let code = command.couponCode;
        if (code === undefined) {
          // A referral code that already holds one of this bank's codes keeps it: asking again
          // (POST /v1/referral_codes is get-or-create) does not use up another.
          for (const ref of state.assigned.values()) if (ref === command.referralCode) return [];
          code = state.codes.find((c) => !state.assigned.has(c));
          if (code === undefined) throw new ConflictError([`coupon bank ${command.bankId} has no available code`]);
        } else {
          if (!state.codes.includes(code)) throw new BadRequestError([{ property: 'coupon_code', code: 'invalid', message: `coupon code ${code} is not in coupon bank ${command.bankId}` }]);
          const holder = state.assigned.get(code);
          if (holder === command.referralCode) return [];
          if (holder !== undefined) throw new ConflictError([`coupon code ${code} is already associated with another referral code`]);
        }
        return [{ type: 'CouponAssigned', data: { bankId: command.bankId, merchantId: command.merchantId, couponCode: code, referralCode: command.referralCode, assignedAt: at } }];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'CouponBankCreated':
        return { merchantId: event.data.merchantId, codes: event.data.codes, assigned: new Map() };
      case 'CouponCodesAdded':
        return { ...state, codes: [...state.codes, ...event.data.codes] };
      case 'CouponAssigned':
        return { ...state, assigned: new Map(state.assigned).set(event.data.couponCode, event.data.referralCode) };
      default:
        return unreachable(event);
    }
  },
};
