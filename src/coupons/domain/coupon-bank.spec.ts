import fc from 'fast-check';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { CouponBankCommand, CouponBankEvent, couponBankDecider, CouponBankState } from './coupon-bank.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const at = now.toISOString();
const created: CouponBankEvent = { type: 'CouponBankCreated', data: { bankId: 9, merchantId: 1, name: 'Spring', codes: ['A', 'B'], createdAt: at } };
const assignedA: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref1', assignedAt: at } };

describe('coupon bank decider', () => {
  it('creates a bank without duplicate codes', () => {
    given(couponBankDecider, [])
      .when({ type: 'CreateCouponBank', bankId: 9, merchantId: 1, name: 'Spring', codes: ['A', 'B', 'A'], now })
      .then([created]);
  });

  it('adds only new codes', () => {
    given(couponBankDecider, [created])
      .when({ type: 'AddCouponCodes', bankId: 9, merchantId: 1, codes: ['B', 'C'], now })
      .then([{ type: 'CouponCodesAdded', data: { bankId: 9, merchantId: 1, codes: ['C'], addedAt: at } }]);
    given(couponBankDecider, [created])
      .when({ type: 'AddCouponCodes', bankId: 9, merchantId: 1, codes: ['A'], now })
      .then([]);
  });

  it('hands out the next available code, and none once all are taken', () => {
    given(couponBankDecider, [created]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref1', now }).then([assignedA]);
    given(couponBankDecider, [created, assignedA])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref2', now })
      .then([{ type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } }]);
    const assignedB: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } };
    given(couponBankDecider, [created, assignedA, assignedB])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref3', now })
      .thenThrows(ConflictError);
  });

  it('draws nothing more for a referral code that already holds one of its codes, even once all are taken', () => {
    given(couponBankDecider, [created, assignedA]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref1', now }).then([]);
    const assignedB: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } };
    given(couponBankDecider, [created, assignedA, assignedB]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref2', now }).then([]);
  });

  it('gives a named code to one referral code only, repeatably to the same one', () => {
    given(couponBankDecider, [created, assignedA])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref1', now })
      .then([]);
    given(couponBankDecider, [created, assignedA])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref2', now })
      .thenThrows(ConflictError);
    given(couponBankDecider, [created])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'Z', referralCode: 'ref1', now })
      .thenThrows(BadRequestError);
  });

  it('reads a history where a code moved to another referral code as the last assignment says', () => {
    const movedA: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref2', assignedAt: at } };
    // ref1 no longer holds a code, so it draws the next free one; ref2 holds A.
    given(couponBankDecider, [created, assignedA, movedA])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref1', now })
      .then([{ type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref1', assignedAt: at } }]);
    given(couponBankDecider, [created, assignedA, movedA]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref2', now }).then([]);
  });

  it("treats another merchant's bank as unknown", () => {
    given(couponBankDecider, [created])
      .when({ type: 'AddCouponCodes', bankId: 9, merchantId: 2, codes: ['C'], now })
      .thenThrows(NotFoundError);
  });
  it('decides as a plain list of codes and map of assignments would, from any state of a bank, however it was reached', () => {
    // The model: the state as it was first written (copied whole at every event).
    type Model = { codes: string[]; assigned: Map<string, string> };
    const modelDecide = (command: CouponBankCommand, m: Model): string => {
      if (command.type === 'AddCouponCodes') return JSON.stringify(command.codes.filter((c, i) => command.codes.indexOf(c) === i && !m.codes.includes(c)));
      if (command.type !== 'AssignCoupon') throw new Error('not modelled');
      let code = command.couponCode;
      if (code === undefined) {
        for (const ref of m.assigned.values()) if (ref === command.referralCode) return '[]';
        code = m.codes.find((c) => !m.assigned.has(c));
        if (code === undefined) return 'Conflict';
      } else {
        if (!m.codes.includes(code)) return 'BadRequest';
        const holder = m.assigned.get(code);
        if (holder === command.referralCode) return '[]';
        if (holder !== undefined) return 'Conflict';
      }
      return JSON.stringify([code, command.referralCode]);
    };
    const decided = (command: CouponBankCommand, state: CouponBankState): { outcome: string; events: CouponBankEvent[] } => {
      try {
        const events = couponBankDecider.decide(command, state);
        const outcome =
          command.type === 'AddCouponCodes'
            ? JSON.stringify(events.flatMap((e) => (e.type === 'CouponCodesAdded' ? e.data.codes : [])))
            : events.length === 0
              ? '[]'
              : JSON.stringify(events.map((e) => (e.type === 'CouponAssigned' ? [e.data.couponCode, e.data.referralCode] : []))[0]);
        return { outcome, events };
      } catch (error) {
        return { outcome: error instanceof ConflictError ? 'Conflict' : error instanceof BadRequestError ? 'BadRequest' : String(error), events: [] };
      }
    };
    const code = fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F');
    const step = fc.record({
      // Which earlier state the step starts from: mostly the newest, sometimes an older one.
      from: fc.option(fc.nat(), { freq: 4 }),
      command: fc.oneof(
        fc.record({ type: fc.constant('AddCouponCodes' as const), codes: fc.array(code, { maxLength: 3 }) }),
        fc.record({
          type: fc.constant('AssignCoupon' as const),
          referralCode: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
          couponCode: fc.option(code, { nil: undefined, freq: 3 }),
        }),
      ),
    });
    fc.assert(
      fc.property(fc.array(code, { maxLength: 4 }), fc.array(step, { maxLength: 30 }), (initial, steps) => {
        const createdEvent: CouponBankEvent = { type: 'CouponBankCreated', data: { bankId: 9, merchantId: 1, name: 'b', codes: initial, createdAt: at } };
        const states: [CouponBankState, Model][] = [
          [couponBankDecider.evolve(couponBankDecider.initialState(), createdEvent), { codes: [...initial], assigned: new Map() }],
        ];
        for (const { from, command } of steps) {
          const [state, model] = states[from === null ? states.length - 1 : from % states.length];
          const full = { ...command, bankId: 9, merchantId: 1, now } as CouponBankCommand;
          const { outcome, events } = decided(full, state);
          expect(outcome).toBe(modelDecide(full, model));
          if (events.length === 0) continue;
          const next = events.reduce((s, e) => couponBankDecider.evolve(s, e), state);
          const nextModel: Model = { codes: [...model.codes], assigned: new Map(model.assigned) };
          for (const e of events) {
            if (e.type === 'CouponCodesAdded') nextModel.codes.push(...e.data.codes);
            if (e.type === 'CouponAssigned') nextModel.assigned.set(e.data.couponCode, e.data.referralCode);
          }
          states.push([next, nextModel]);
        }
      }),
      { numRuns: 500 },
    );
  });
});
