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
  codes: CouponCodes;
}

/** The columns successive states of one bank share; only the newest state changes them. */
interface CodeColumns {
  /** The bank's codes, in the order added. */
  readonly codes: string[];
  readonly known: Set<string>;
  /** Every assignment, in order: coupon code and the referral code it went to. */
  readonly assignments: [couponCode: string, referralCode: string][];
  /** coupon code → the referral code it is assigned to (the last assignment of a code wins). */
  readonly holder: Map<string, string>;
  /** referral code → how many of the bank's codes it holds. */
  readonly held: Map<string, number>;
  /** Every code before this place is assigned. */
  firstFree: number;
}

/**
 * A bank's codes and their assignments. Immutable to its users; the states of one bank share
 * their columns (extending the newest appends in place, anything else works on a copy of what
 * it holds), so that handing out the n-th code costs the same as the first: the state was a map
 * of every assignment copied whole at each one, and finding the next free code scanned every
 * code already taken (20,000 assignments of one bank took 29 s, and a restart folded them again).
 */
export class CouponCodes {
  private constructor(
    private columns: CodeColumns,
    private readonly codeCount: number,
    private readonly assignmentCount: number,
  ) {}

  static empty(): CouponCodes {
    return new CouponCodes({ codes: [], known: new Set(), assignments: [], holder: new Map(), held: new Map(), firstFree: 0 }, 0, 0);
  }

  has(code: string): boolean {
    return this.own().known.has(code);
  }

  holderOf(code: string): string | undefined {
    return this.own().holder.get(code);
  }

  /** Whether the referral code holds one of the bank's codes. */
  holds(referralCode: string): boolean {
    return (this.own().held.get(referralCode) ?? 0) > 0;
  }

  /** The first code, in the order added, that no referral code holds. */
  firstAvailable(): string | undefined {
    const columns = this.own();
    const { codes, holder } = columns;
    // Codes are only ever added at the end and never released, so the place only moves forward.
    while (columns.firstFree < codes.length && holder.has(codes[columns.firstFree])) columns.firstFree += 1;
    return codes[columns.firstFree];
  }

  withCodes(added: readonly string[]): CouponCodes {
    const columns = this.own();
    for (const code of added) {
      columns.codes.push(code);
      columns.known.add(code);
    }
    return new CouponCodes(columns, columns.codes.length, this.assignmentCount);
  }

  withAssignment(couponCode: string, referralCode: string): CouponCodes {
    const columns = this.own();
    columns.assignments.push([couponCode, referralCode]);
    const previous = columns.holder.get(couponCode);
    if (previous !== undefined) columns.held.set(previous, columns.held.get(previous)! - 1);
    columns.holder.set(couponCode, referralCode);
    columns.held.set(referralCode, (columns.held.get(referralCode) ?? 0) + 1);
    return new CouponCodes(columns, this.codeCount, columns.assignments.length);
  }

  /** The shared columns when this is the newest state; otherwise columns of its own, rebuilt from what it holds. */
  private own(): CodeColumns {
    const { codes, assignments } = this.columns;
    if (codes.length === this.codeCount && assignments.length === this.assignmentCount) return this.columns;
    let rebuilt = CouponCodes.empty().withCodes(codes.slice(0, this.codeCount));
    for (const [couponCode, referralCode] of assignments.slice(0, this.assignmentCount)) rebuilt = rebuilt.withAssignment(couponCode, referralCode);
    return (this.columns = rebuilt.columns);
  }
}

export const couponBankStream = (bankId: number) => `coupon-bank-${bankId}`;

/** The codes in their first order, once each, without those `known` already has. */
function dedupe(codes: string[], known?: CouponCodes): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const code of codes) {
    if (!seen.has(code) && !known?.has(code)) {
      seen.add(code);
      out.push(code);
    }
  }
  return out;
}

export const couponBankDecider: Decider<CouponBankCommand, CouponBankState, CouponBankEvent> = {
  initialState: () => ({ merchantId: null, codes: CouponCodes.empty() }),

  decide(command, state) {
    const at = command.now.toISOString();
    if (command.type === 'CreateCouponBank') {
      if (state.merchantId !== null) throw new ConflictError([`coupon bank ${command.bankId} already exists`]);
      return [
        {
          type: 'CouponBankCreated',
          data: { bankId: command.bankId, merchantId: command.merchantId, name: command.name, codes: dedupe(command.codes), createdAt: at },
        },
      ];
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
          if (state.codes.holds(command.referralCode)) return [];
          code = state.codes.firstAvailable();
          if (code === undefined) throw new ConflictError([`coupon bank ${command.bankId} has no available code`]);
        } else {
          if (!state.codes.has(code))
            throw new BadRequestError([{ property: 'coupon_code', code: 'invalid', message: `coupon code ${code} is not in coupon bank ${command.bankId}` }]);
          const holder = state.codes.holderOf(code);
          if (holder === command.referralCode) return [];
          if (holder !== undefined) throw new ConflictError([`coupon code ${code} is already associated with another referral code`]);
        }
        return [
          {
            type: 'CouponAssigned',
            data: { bankId: command.bankId, merchantId: command.merchantId, couponCode: code, referralCode: command.referralCode, assignedAt: at },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'CouponBankCreated':
        return { merchantId: event.data.merchantId, codes: CouponCodes.empty().withCodes(event.data.codes) };
      case 'CouponCodesAdded':
        return { ...state, codes: state.codes.withCodes(event.data.codes) };
      case 'CouponAssigned':
        return { ...state, codes: state.codes.withAssignment(event.data.couponCode, event.data.referralCode) };
      default:
        return unreachable(event);
    }
  },
};
