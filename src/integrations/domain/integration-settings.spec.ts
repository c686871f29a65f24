import { BadRequestError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { CustomHeadersConfigured, customHeaderFaults, integrationSettingsDecider } from './integration-settings.js';

const now = new Date('2026-05-01T08:00:00.000Z');

describe('integration settings decider', () => {
  it('configures the client-API URLs, either of which may be null, and records no repeat', () => {
    const configured = {
      type: 'ClientApiConfigured' as const,
      data: { merchantId: 1, shareInstructionsUrl: 'https://shop.example/share', rewardValidationUrl: null, configuredAt: now.toISOString() },
    };
    given(integrationSettingsDecider, [])
      .when({ type: 'ConfigureClientApi', merchantId: 1, shareInstructionsUrl: 'https://shop.example/share', rewardValidationUrl: null, now })
      .then([configured]);
    given(integrationSettingsDecider, [configured])
      .when({ type: 'ConfigureClientApi', merchantId: 1, shareInstructionsUrl: 'https://shop.example/share', rewardValidationUrl: null, now })
      .then([]);
    given(integrationSettingsDecider, [])
      .when({ type: 'ConfigureClientApi', merchantId: 1, shareInstructionsUrl: 'mailto:x@shop.example', rewardValidationUrl: null, now })
      .thenThrows(BadRequestError);
  });

  it('configures custom headers', () => {
    const event: CustomHeadersConfigured = {
      type: 'CustomHeadersConfigured',
      data: { merchantId: 1, headers: { 'X-Vendor': 'referrals', Authorization: 'Bearer abc' }, replaceSignature: true, configuredAt: now.toISOString() },
    };
    given(integrationSettingsDecider, [])
      .when({ type: 'ConfigureCustomHeaders', merchantId: 1, headers: { 'X-Vendor': 'referrals', Authorization: 'Bearer abc' }, replaceSignature: true, now })
      .then([event]);
  });

  it('refuses header names that are not HTTP tokens, values with CR or LF, reserved and repeated names', () => {
    const faults = customHeaderFaults({
      headers: {
        'Bad Name': 'x',
        'X-Injected': 'a\r\nSet-Cookie: b',
        'Content-Type': 'text/plain',
        'x-a': '1',
        'X-A': '2',
        'X-Ok': 'fine',
        'Content-Encoding': 'gzip',
        'X-Padded': ' v ',
        'X-Inner': 'a b',
      },
      replaceSignature: false,
    });
    expect(faults.map((f) => (typeof f === 'string' ? f : f.property))).toEqual([
      'headers.Bad Name',
      'headers.X-Injected',
      'headers.Content-Type',
      'headers.X-A',
      'headers.Content-Encoding',
      'headers.X-Padded',
    ]);
    given(integrationSettingsDecider, [])
      .when({ type: 'ConfigureCustomHeaders', merchantId: 1, headers: { 'X-Injected': 'a\nb' }, replaceSignature: false, now })
      .thenThrows(BadRequestError);
  });

  it('refuses to replace the signature with nothing', () => {
    expect(customHeaderFaults({ headers: {}, replaceSignature: true })).toEqual([expect.objectContaining({ property: 'replace_signature', code: 'invalid' })]);
  });
});
