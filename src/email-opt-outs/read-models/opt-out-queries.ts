/** Whether addresses are opted out, for every email the service sends for a merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { PERSONAL_DATA, type PersonalDataEventStore } from '../../platform/personal-data/index.js';
import { normaliseEmail } from '../domain/email-opt-out.js';
import { keyedOptOutKey, optOutKey, OptOutDoc, OptOutJobDoc, optOutJobsCollection, optOutsCollection } from './opt-outs.projection.js';

@Injectable()
export class OptOutQueries {
  readonly optOuts: ReadCollection<OptOutDoc>;
  readonly jobs: ReadCollection<OptOutJobDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
  ) {
    this.optOuts = readStore.collection<OptOutDoc>(optOutsCollection);
    this.jobs = readStore.collection<OptOutJobDoc>(optOutJobsCollection);
  }

  /** By the address's keyed hash (which outlives the address's erasure), or by the address for opt-outs recorded before the key. */
  async isOptedOut(merchantId: number, email: string): Promise<boolean> {
    if ((await this.optOuts.get(keyedOptOutKey(merchantId, this.personalData.emailKey(merchantId, email)))) !== null) return true;
    return (await this.optOuts.get(optOutKey(merchantId, normaliseEmail(email)))) !== null;
  }

  /** Splits addresses into those that may be emailed and those opted out. */
  async partition(merchantId: number, emails: string[]): Promise<{ allowed: string[]; optedOut: string[] }> {
    const allowed: string[] = [];
    const optedOut: string[] = [];
    for (const email of emails) ((await this.isOptedOut(merchantId, email)) ? optedOut : allowed).push(email);
    return { allowed, optedOut };
  }
}
