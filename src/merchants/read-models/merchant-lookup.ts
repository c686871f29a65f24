/** Finds merchants for the guards, from the merchants read model. */
import { Inject, Injectable } from '@nestjs/common';
import { MerchantLookup, MerchantRecord } from '../../platform/auth/principal.js';
import { NotFoundError } from '../../platform/errors.js';
import { parseId } from '../../platform/http/links.js';
import { docKey } from '../../platform/ids.js';
import { READ_STORE, ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { AllowedOriginDoc, allowedOriginsCollection, MerchantDoc, merchantsCollection } from './merchants.projection.js';

@Injectable()
export class MerchantDirectory implements MerchantLookup {
  private readonly merchants: ReadCollection<MerchantDoc>;
  private readonly origins: ReadCollection<AllowedOriginDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.merchants = readStore.collection<MerchantDoc>(merchantsCollection);
    this.origins = readStore.collection<AllowedOriginDoc>(allowedOriginsCollection);
  }

  async byId(id: number): Promise<MerchantRecord | null> {
    return this.merchants.get(docKey(id));
  }

  async byAccessKey(accessKey: string): Promise<MerchantRecord | null> {
    return this.merchants.findOne({ access_key: accessKey });
  }

  async byPublishableKey(publishableKey: string): Promise<MerchantRecord | null> {
    return this.merchants.findOne({ publishable_key: publishableKey });
  }

  async isOriginAllowedByAny(origin: string): Promise<boolean> {
    return (await this.origins.findOne({ origin })) !== null;
  }

  async doc(id: number): Promise<MerchantDoc | null> {
    return this.merchants.get(docKey(id));
  }

  /** The merchant named by an admin path's `{merchant_id}`, or 404. */
  async requireFromPath(raw: string): Promise<MerchantDoc> {
    const merchant = await this.doc(parseId(raw, 'merchant'));
    if (!merchant) throw new NotFoundError([`merchant ${raw.slice(0, 64)} not found`]);
    return merchant;
  }
}
