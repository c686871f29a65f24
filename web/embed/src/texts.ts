/** Every word the widgets show, in English; a shop passes its own through `text` (docs/embedding.md). */
export const TEXTS = {
  signedOut: 'Sign in to get your own referral link.',
  reward: 'Share your link: you earn {reward} for each friend who buys.',
  shareIntro: 'Share your link with friends.',
  linkLabel: 'Your referral link',
  copy: 'Copy link',
  copied: 'Link copied.',
  copyFailed: 'Select the link and copy it.',
  facebook: 'Share on Facebook',
  twitter: 'Share on X',
  opening: 'Opening {network}…',
  recipientsLabel: "Friends' email addresses",
  recipientsHint: 'Separate addresses with commas.',
  messageLabel: 'Message (optional)',
  send: 'Send invites',
  sending: 'Sending…',
  sent: 'Invites sent to {count}.',
  noRecipients: 'Enter at least one email address.',
  captureIntro: 'Get news and offers by email.',
  emailLabel: 'Email address',
  newsletter: 'Send me the newsletter',
  signUp: 'Sign up',
  signedUp: 'Thanks, you are signed up.',
  noEmail: 'Enter your email address.',
  unavailable: 'Sharing is unavailable right now. Please try again later.',
};

export type Texts = typeof TEXTS;

export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
