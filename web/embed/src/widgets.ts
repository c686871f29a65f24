/** The widgets a page shows: the advocate's (link, social shares, email shares) and email capture. */
import { Api, ReferralError } from './api';
import { h, uid } from './dom';
import { STYLES } from './styles';
import { fill, type Texts } from './texts';

/** A widget as GET /browser/v1/widgets answers it. */
export interface BrowserWidget {
  id: number;
  name: string;
  objective: 'referral' | 'email_capture' | 'influencer';
  widget_group_id: string;
  distribution: number;
  reward_type: string | null;
  reward_amount: number | null;
  destination_url: string | null;
}

export interface WidgetContext {
  api: Api;
  texts: Texts;
  currency: string;
  /** The code the visitor arrived with, recorded with an email capture. */
  referralCode: () => string | undefined;
}

export interface Mounted {
  widget: BrowserWidget;
  /** The element the widget was rendered into (its shadow root holds the widget). */
  element: Element;
  destroy(): void;
}

/** What the visitor is offered, e.g. "$10.00" or "15% off", or "a reward" when the widget names none. */
export function rewardText(widget: BrowserWidget, currency: string): string {
  const amount = widget.reward_amount;
  if (amount === null) return 'a reward';
  switch (widget.reward_type) {
    case 'percent_discount':
      return `${amount}% off`;
    case 'fixed_points':
      return `${amount} points`;
    case 'fixed_cash':
    case 'stripe_credit':
    case 'chargebee_credit':
      try {
        return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
      } catch {
        return `${amount} ${currency}`;
      }
    default:
      return 'a reward';
  }
}

/** Renders `widget` into `target`'s shadow root, replacing what a previous render put there. */
export function mount(target: Element, widget: BrowserWidget, context: WidgetContext): Mounted {
  const root = target.shadowRoot ?? target.attachShadow({ mode: 'open' });
  const card = h('section', { class: 'card', 'aria-labelledby': uid('title') });
  root.replaceChildren(h('style', {}, STYLES), card);
  const title = h('h2', { id: card.getAttribute('aria-labelledby')! }, widget.name);
  card.append(title);
  if (widget.objective === 'email_capture') renderCapture(card, widget, context, target);
  else renderAdvocate(card, widget, context, target);
  return { widget, element: target, destroy: () => root.replaceChildren() };
}

/** A live region each widget reports into, so a screen reader hears what happened. */
function statusLine(): { element: HTMLElement; say(text: string, error?: boolean): void } {
  const element = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  return {
    element,
    say(text, error = false) {
      element.textContent = text;
      element.classList.toggle('error', error);
    },
  };
}

function announce(target: Element, name: string, detail: unknown): void {
  target.dispatchEvent(new CustomEvent(`referral:${name}`, { detail, bubbles: true, composed: true }));
}

function message(error: unknown, texts: Texts): string {
  return error instanceof ReferralError && error.status < 500 && error.status !== 0 ? error.message : texts.unavailable;
}

function renderAdvocate(card: HTMLElement, widget: BrowserWidget, context: WidgetContext, target: Element): void {
  const { api, texts } = context;
  const intro = h('p', {}, widget.reward_amount === null ? texts.shareIntro : fill(texts.reward, { reward: rewardText(widget, context.currency) }));
  const status = statusLine();
  card.append(intro);
  if (!api.hasCustomer()) {
    intro.textContent = texts.signedOut;
    return;
  }
  const linkId = uid('link');
  const link = h('input', { id: linkId, type: 'text', readonly: true, value: '' });
  const copy = h('button', { type: 'button', class: 'secondary' }, texts.copy);
  const facebook = h('button', { type: 'button' }, texts.facebook);
  const twitter = h('button', { type: 'button' }, texts.twitter);
  const recipientsId = uid('recipients');
  const hintId = uid('hint');
  const recipients = h('input', { id: recipientsId, type: 'text', inputmode: 'email', autocomplete: 'off', 'aria-describedby': hintId });
  const messageId = uid('message');
  const messageField = h('textarea', { id: messageId, maxlength: '1000' });
  const send = h('button', { type: 'submit' }, texts.send);
  const form = h(
    'form',
    { novalidate: true },
    h('label', { for: recipientsId }, texts.recipientsLabel),
    recipients,
    h('p', { class: 'hint', id: hintId }, texts.recipientsHint),
    h('label', { for: messageId }, texts.messageLabel),
    messageField,
    h('div', { class: 'actions' }, send),
  );
  card.append(
    h('label', { for: linkId }, texts.linkLabel),
    h('div', { class: 'row' }, link, copy),
    h('div', { class: 'social' }, facebook, twitter),
    form,
    status.element,
  );
  for (const control of [copy, facebook, twitter, send]) control.disabled = true;

  api.call<{ referral_link: { url: string; code: string } }>('POST', '/referral_links', { widget_id: widget.id }, true).then(
    ({ referral_link }) => {
      link.value = referral_link.url;
      for (const control of [copy, facebook, twitter, send]) control.disabled = false;
    },
    (error: unknown) => status.say(message(error, texts), true),
  );

  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(link.value);
      status.say(texts.copied);
    } catch {
      link.select();
      status.say(texts.copyFailed);
    }
  });

  const shareTo = (channel: 'facebook' | 'twitter', label: string, address: (url: string) => string) => async () => {
    // Opened within the click, so popup blockers allow it; pointed at the network once the share has its own link.
    const popup = window.open('', '_blank');
    if (popup) popup.opener = null;
    status.say(fill(texts.opening, { network: label }));
    try {
      const { share } = await api.call<{ share: { url: string; referral_code: string } }>('POST', '/shares', { widget_id: widget.id, channel }, true);
      announce(target, 'share', { channel, referral_code: share.referral_code, url: share.url });
      if (popup) popup.location.href = address(share.url);
      else window.location.href = address(share.url);
      status.say('');
    } catch (error) {
      popup?.close();
      status.say(message(error, texts), true);
    }
  };
  facebook.addEventListener(
    'click',
    shareTo('facebook', 'Facebook', (url) => `https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(url)}`),
  );
  twitter.addEventListener(
    'click',
    shareTo('twitter', 'X', (url) => `https://twitter.com/intent/tweet?url=${encodeURIComponent(url)}`),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const addresses = recipients.value.split(/[\s,;]+/).filter(Boolean);
    recipients.setAttribute('aria-invalid', String(addresses.length === 0));
    if (addresses.length === 0) {
      status.say(texts.noRecipients, true);
      recipients.focus();
      return;
    }
    send.disabled = true;
    send.textContent = texts.sending;
    try {
      const text = messageField.value.trim();
      const { share } = await api.call<{ share: { referral_code: string } }>(
        'POST',
        '/shares',
        { widget_id: widget.id, channel: 'email', email_recipients: addresses, ...(text ? { message: text } : {}) },
        true,
      );
      announce(target, 'share', { channel: 'email', referral_code: share.referral_code, recipients: addresses.length });
      recipients.value = '';
      messageField.value = '';
      status.say(fill(texts.sent, { count: addresses.length === 1 ? '1 friend' : `${addresses.length} friends` }));
    } catch (error) {
      status.say(message(error, texts), true);
    } finally {
      send.disabled = false;
      send.textContent = texts.send;
    }
  });
}

function renderCapture(card: HTMLElement, widget: BrowserWidget, context: WidgetContext, target: Element): void {
  const { api, texts } = context;
  const emailId = uid('email');
  const email = h('input', { id: emailId, type: 'email', autocomplete: 'email', required: true });
  const optIn = h('input', { type: 'checkbox' });
  const submit = h('button', { type: 'submit' }, texts.signUp);
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    h('label', { for: emailId }, texts.emailLabel),
    h('div', { class: 'row' }, email, submit),
    h('label', { class: 'check' }, optIn, texts.newsletter),
  );
  card.append(h('p', {}, texts.captureIntro), form, status.element);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    email.setAttribute('aria-invalid', String(address === ''));
    if (!address) {
      status.say(texts.noEmail, true);
      email.focus();
      return;
    }
    submit.disabled = true;
    try {
      const code = context.referralCode();
      const { email_capture } = await api.call<{ email_capture: unknown }>('POST', '/email_captures', {
        widget_id: widget.id,
        email_address: address,
        newsletter_opt_in: optIn.checked,
        ...(code ? { referral_code: code } : {}),
      });
      announce(target, 'capture', email_capture);
      email.value = '';
      status.say(texts.signedUp);
    } catch (error) {
      email.setAttribute('aria-invalid', String(error instanceof ReferralError && error.status === 400));
      status.say(message(error, texts), true);
    } finally {
      submit.disabled = false;
    }
  });
}
