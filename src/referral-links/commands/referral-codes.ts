/**
 * The codes new referral links get. Codes are matched whatever their case (foldCode: people type
 * them), so no two may differ in case alone. Drawn codes are lower case (CODE_ALPHABET), so two of
 * them never do; a drawn code that a chosen code holds in another case (a vanity `SUMMER24`, a
 * drawn `summer24`) is drawn again. A chosen code (vanity links, sample data) is refused when a
 * code of another case exists, checked in the turn of its folded form, so that two such requests
 * cannot both pass (one process per data directory, as KeyedTurns assumes).
 */
import { Inject, Injectable } from '@nestjs/common';
import { ConflictError } from '../../platform/errors.js';
import { CODE_SOURCE, type CodeSource } from '../../platform/ids.js';
import { KeyedTurns } from '../../platform/keyed-turns.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { foldCode } from '../../platform/codes.js';

/** Draws before giving up: a drawn code is taken in another case about once in 32^8 draws. */
const DRAWS = 5;

@Injectable()
export class ReferralCodes {
  constructor(
    @Inject(CODE_SOURCE) private readonly source: CodeSource,
    private readonly links: ReferralLinkQueries,
    private readonly turns: KeyedTurns,
  ) {}

  /**
   * A drawn code that no link holds in another case (a link holding it exactly is refused by the
   * code's own stream, and the code drawn again, by createLinkWith). A chosen code created in the
   * same instant is not waited for: that needs it to be this very draw.
   */
  async draw(): Promise<string> {
    for (let attempt = 1; ; attempt += 1) {
      const code = this.source.next();
      if (!(await this.links.caseVariantOf(code))) return code;
      if (attempt >= DRAWS) throw new ConflictError(['no free referral code was drawn; try again']);
    }
  }

  /** Runs `create` (which makes a link with the chosen `code`) unless a code that differs from it in case alone exists. */
  chosen<T>(code: string, create: () => Promise<T>): Promise<T> {
    return this.turns.take(`referral-code:${foldCode(code)}`, async () => {
      const variant = await this.links.caseVariantOf(code);
      if (variant) {
        throw new ConflictError([`referral code ${code} differs in case alone from the existing code ${variant.code} (codes are compared case-insensitively)`]);
      }
      return create();
    });
  }
}
