/**
 * A v1 Customer's recent_shares and recent_referral_codes (spec §2.2). The referral-codes
 * feature registers its readers here, so customers do not depend on it.
 */
import { Injectable } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { CustomerDoc } from './customers.projection.js';

export interface CustomerActivitySource {
  recentShares(customer: CustomerDoc, links: Links): Promise<unknown[]>;
  recentReferralCodes(customer: CustomerDoc, links: Links): Promise<unknown[]>;
}

@Injectable()
export class CustomerActivity {
  private readonly sources: CustomerActivitySource[] = [];

  register(source: CustomerActivitySource): void {
    this.sources.push(source);
  }

  async recent(customer: CustomerDoc, links: Links): Promise<{ recentShares: unknown[]; recentReferralCodes: unknown[] }> {
    const recentShares: unknown[] = [];
    const recentReferralCodes: unknown[] = [];
    for (const source of this.sources) {
      recentShares.push(...(await source.recentShares(customer, links)));
      recentReferralCodes.push(...(await source.recentReferralCodes(customer, links)));
    }
    return { recentShares, recentReferralCodes };
  }
}
