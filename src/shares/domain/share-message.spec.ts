import { holdsLink, permittedMessage } from './share-message.js';

describe('share message policy', () => {
  it.each([
    'Your account is suspended. Verify at https://evil.example/login',
    'Verify at evil.example/login',
    'go to WWW.EVIL.EXAMPLE now',
    'write to support@evil.example',
    'mailto:someone',
    'see 198.51.100.7/login',
    'bücher.example hat es',
    'full-width dot evil。example',
  ])('finds a link in %p', (text) => {
    expect(holdsLink(text)).toBe(true);
  });

  it.each(['Hi Bob. Check this out!', 'e.g. a tent, i.e. shelter', '10.5% off, 3.99 each', 'Thanks! See you soon.', ''])('finds none in %p', (text) => {
    expect(holdsLink(text)).toBe(false);
  });

  it('keeps, drops or filters the message by policy', () => {
    const phishing = 'Verify at https://evil.example/login';
    expect(permittedMessage('free', phishing)).toBe(phishing);
    expect(permittedMessage('plain', phishing)).toBeNull();
    expect(permittedMessage('plain', 'You will love it')).toBe('You will love it');
    expect(permittedMessage('off', 'You will love it')).toBeNull();
    expect(permittedMessage('free', null)).toBeNull();
  });
});
