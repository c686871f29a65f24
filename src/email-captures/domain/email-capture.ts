/** Email captures (spec §2.3 EmailCapture): an address a widget collected, once per id. */
import { Decider } from '../../platform/decider.js';
import { ConflictError } from '../../platform/errors.js';
import type { UseCaseInput } from '../../platform/use-case.js';
import { EmailCaptured } from './email-capture-events.js';

export type CaptureEmail = { type: 'CaptureEmail'; now: Date } & Omit<EmailCaptured['data'], 'createdAt'>;

/** What a route asks to capture: it differs in the referral code, given as typed (or not), which the handler turns into the link's own. */
export type EmailCaptureRequest = UseCaseInput<CaptureEmail, 'emailCaptureId' | 'referralCode'> & { referralCode?: string };

export const emailCaptureStream = (id: number) => `email-capture-${id}`;

export const emailCaptureDecider: Decider<CaptureEmail, { captured: boolean }, EmailCaptured> = {
  initialState: () => ({ captured: false }),
  decide(command, state) {
    if (state.captured) throw new ConflictError([`email capture ${command.emailCaptureId} already exists`]);
    const { type: _type, now, ...data } = command;
    return [{ type: 'EmailCaptured', data: { ...data, createdAt: now.toISOString() } }];
  },
  evolve: () => ({ captured: true }),
};
