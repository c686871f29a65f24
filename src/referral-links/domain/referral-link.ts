/**
 * Referral codes and the links they make (spec §1 rule 4, §2.3 ReferralLink). A code is
 * unique across the whole service because its stream is named after it and created with
 * "no stream" expected: two concurrent creations of the same code cannot both succeed.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { CouponAssociated } from '../../coupons/index.js';

export const LINK_TYPES = ['customer_personal_url', 'email_personal_url', 'vanity_personal_url', 'share', 'reminder_email'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export type LinkParameters = Record<string, string | number | boolean>;

export type ReferralLinkCreated = DomainEvent<
  'ReferralLinkCreated',
  {
    code: string;
    merchantId: number;
    widgetId: number;
    type: LinkType;
    advocateCustomerId: number | null;
    advocateEmail: string | null;
    shareId: number | null;
    reminderEmailId: number | null;
    linkParameters: LinkParameters | null;
    ipAddress: string | null;
    createdAt: string;
  }
>;
export type ReferralLinkParametersReplaced = DomainEvent<
  'ReferralLinkParametersReplaced',
  { code: string; merchantId: number; linkParameters: LinkParameters | null; replacedAt: string }
>;
export type ReferralLinkAdvocateEmailChanged = DomainEvent<
  'ReferralLinkAdvocateEmailChanged',
  { code: string; merchantId: number; advocateEmail: string; changedAt: string }
>;
export type ReferralLinkClicked = DomainEvent<
  'ReferralLinkClicked',
  { code: string; merchantId: number; ipAddress: string | null; userAgent: string | null; referrer: string | null; blacklisted: boolean; clickedAt: string }
>;
export type ReferralLinkBlacklisted = DomainEvent<'ReferralLinkBlacklisted', { code: string; merchantId: number; at: string }>;
export type ReferralLinkUnblacklisted = DomainEvent<'ReferralLinkUnblacklisted', { code: string; merchantId: number; at: string }>;

export type ReferralLinkEvent =
  | ReferralLinkCreated
  | ReferralLinkParametersReplaced
  | ReferralLinkAdvocateEmailChanged
  | CouponAssociated
  | ReferralLinkClicked
  | ReferralLinkBlacklisted
  | ReferralLinkUnblacklisted;

export type ReferralLinkCommand =
  | ({ type: 'CreateReferralLink'; linkType: LinkType; now: Date } & Omit<ReferralLinkCreated['data'], 'createdAt' | 'type'>)
  | { type: 'ReplaceLinkParameters'; code: string; merchantId: number; linkParameters: LinkParameters | null; now: Date }
  | { type: 'SetAdvocateEmail'; code: string; merchantId: number; advocateEmail: string; now: Date }
  | { type: 'RecordCouponAssociation'; code: string; merchantId: number; couponCode: string; couponBankId: number; now: Date }
  | { type: 'RecordClick'; code: string; ipAddress: string | null; userAgent: string | null; referrer: string | null; now: Date }
  | { type: 'Blacklist'; code: string; merchantId: number; blacklisted: boolean; now: Date };

type CreateReferralLink = Extract<ReferralLinkCommand, { type: 'CreateReferralLink' }>;

/** A personal link as asked for: it differs from CreateReferralLink in naming the advocate, whose claim gives the code, and in what an existing link keeps. */
export type PersonalLinkRequest = Pick<CreateReferralLink, 'merchantId' | 'widgetId' | 'ipAddress'> & {
  advocate: { customerId: number } | { email: string };
  /** The reward address the request gives: set on the link, new or existing (null: none given). */
  advocateEmail: CreateReferralLink['advocateEmail'];
  /**
   * The reward address a new link gets when the request gives none (the customer's address). An
   * existing link keeps its own: a request that names no address changes none.
   */
  defaultAdvocateEmail?: CreateReferralLink['advocateEmail'];
  /** undefined: leave as is; null: clear. */
  linkParameters?: CreateReferralLink['linkParameters'];
};

export interface ReferralLinkState {
  link: ReferralLinkCreated['data'] | null;
  linkParameters: LinkParameters | null;
  advocateEmail: string | null;
  couponCodes: string[];
  blacklisted: boolean;
}

export const referralLinkStream = (code: string) => `referral-code-${code}`;

/**
 * The advocate/widget key of a personal link: the same advocate and widget always get the same code.
 * An advocate known by address goes by its keyed hash (`PersonalDataEventStore.emailKey`), `k…`:
 * a stream name is not encrypted (logs written before named it `e<base64url of the address>`).
 */
export function personalLinkClaimStream(merchantId: number, widgetId: number, advocate: { customerId: number } | { emailKey: string }): string {
  const who = 'customerId' in advocate ? `c${advocate.customerId}` : `k${advocate.emailKey}`;
  return `personal-link-${merchantId}-${widgetId}-${who}`;
}

export type PersonalLinkClaimed = DomainEvent<'PersonalLinkClaimed', { merchantId: number; widgetId: number; code: string; claimedAt: string }>;

/** Lower case only: two drawn codes never differ in case alone (codes are matched whatever their case, foldCode). */
export const CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
export const CODE_LENGTH = 8;

function sameParameters(a: LinkParameters | null, b: LinkParameters | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export const referralLinkDecider: Decider<ReferralLinkCommand, ReferralLinkState, ReferralLinkEvent> = {
  initialState: () => ({ link: null, linkParameters: null, advocateEmail: null, couponCodes: [], blacklisted: false }),

  decide(command, state) {
    const at = command.now.toISOString();
    if (command.type === 'CreateReferralLink') {
      if (state.link) throw new ConflictError([`referral code ${command.code} already exists`]);
      const { type: _command, now: _now, linkType, ...data } = command;
      return [{ type: 'ReferralLinkCreated', data: { ...data, type: linkType, createdAt: at } }];
    }
    if (!state.link) throw new NotFoundError([`referral code ${command.code} not found`]);
    if (command.type !== 'RecordClick' && command.merchantId !== state.link.merchantId) {
      throw new NotFoundError([`referral code ${command.code} not found`]);
    }
    const base = { code: command.code, merchantId: state.link.merchantId };
    switch (command.type) {
      case 'ReplaceLinkParameters':
        return sameParameters(state.linkParameters, command.linkParameters)
          ? []
          : [{ type: 'ReferralLinkParametersReplaced', data: { ...base, linkParameters: command.linkParameters, replacedAt: at } }];
      case 'SetAdvocateEmail':
        return state.advocateEmail === command.advocateEmail
          ? []
          : [{ type: 'ReferralLinkAdvocateEmailChanged', data: { ...base, advocateEmail: command.advocateEmail, changedAt: at } }];
      case 'RecordCouponAssociation':
        return state.couponCodes.includes(command.couponCode)
          ? []
          : [
              {
                type: 'CouponAssociated',
                data: {
                  ...base,
                  widgetId: state.link.widgetId,
                  advocateCustomerId: state.link.advocateCustomerId,
                  couponCode: command.couponCode,
                  couponBankId: command.couponBankId,
                  associatedAt: at,
                },
              },
            ];
      case 'RecordClick':
        return [
          {
            type: 'ReferralLinkClicked',
            data: {
              ...base,
              ipAddress: command.ipAddress,
              userAgent: command.userAgent,
              referrer: command.referrer,
              blacklisted: state.blacklisted,
              clickedAt: at,
            },
          },
        ];
      case 'Blacklist':
        if (state.blacklisted === command.blacklisted) return [];
        return [{ type: command.blacklisted ? 'ReferralLinkBlacklisted' : 'ReferralLinkUnblacklisted', data: { ...base, at } }];
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ReferralLinkCreated':
        return { ...state, link: event.data, linkParameters: event.data.linkParameters, advocateEmail: event.data.advocateEmail };
      case 'ReferralLinkParametersReplaced':
        return { ...state, linkParameters: event.data.linkParameters };
      case 'ReferralLinkAdvocateEmailChanged':
        return { ...state, advocateEmail: event.data.advocateEmail };
      case 'CouponAssociated':
        return { ...state, couponCodes: [...state.couponCodes, event.data.couponCode] };
      case 'ReferralLinkClicked':
        return state;
      case 'ReferralLinkBlacklisted':
        return { ...state, blacklisted: true };
      case 'ReferralLinkUnblacklisted':
        return { ...state, blacklisted: false };
      default:
        return unreachable(event);
    }
  },
};
