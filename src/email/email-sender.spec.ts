import { EMAIL_REPLY_MAX_LENGTH } from './domain/email-events.js';
import { EmailRefused, permanentRefusal } from './email-sender.js';

/** An error shaped as nodemailer's (smtp-connection's _formatError): code, response, responseCode, command. */
const smtpError = (command: string, response: string | undefined, code = 'EENVELOPE') =>
  Object.assign(new Error('failed'), { code, command, ...(response === undefined ? {} : { response, responseCode: Number(response.slice(0, 3)) }) });

describe('permanentRefusal', () => {
  it('takes a 5xx reply to the recipient or the content as final', () => {
    const refused = permanentRefusal(smtpError('RCPT TO', '550 5.1.1 <bob@example.com>: user unknown'));
    expect(refused).toBeInstanceOf(EmailRefused);
    expect(refused).toMatchObject({ replyCode: 550, reply: '550 5.1.1 <bob@example.com>: user unknown' });
    expect(permanentRefusal(smtpError('RCPT TO', '501 5.1.3 Bad recipient address syntax'))).toMatchObject({ replyCode: 501 });
    expect(permanentRefusal(smtpError('DATA', '554 5.7.1 Message rejected', 'EMESSAGE'))).toMatchObject({ replyCode: 554 });
  });

  it('leaves temporary failures and the session’s own refusals to be tried again', () => {
    expect(permanentRefusal(smtpError('RCPT TO', '451 4.3.0 Try again later'))).toBeUndefined();
    expect(permanentRefusal(smtpError('RCPT TO', '452 4.2.2 Mailbox full'))).toBeUndefined();
    // 503: the session was out of step; the message was not judged.
    expect(permanentRefusal(smtpError('RCPT TO', '503 5.5.1 Bad sequence of commands'))).toBeUndefined();
    // About the service (its credentials, its sender address), the same for every message: the operator's to fix.
    expect(permanentRefusal(smtpError('AUTH PLAIN', '535 5.7.8 Authentication failed', 'EAUTH'))).toBeUndefined();
    expect(permanentRefusal(smtpError('MAIL FROM', '550 5.7.1 Sender rejected'))).toBeUndefined();
    expect(permanentRefusal(smtpError('CONN', undefined, 'ECONNECTION'))).toBeUndefined();
    expect(permanentRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' }))).toBeUndefined();
    expect(permanentRefusal(new Error('plain'))).toBeUndefined();
    expect(permanentRefusal('text')).toBeUndefined();
    expect(permanentRefusal(null)).toBeUndefined();
  });

  it("keeps the server's reply on one line and short", () => {
    const refused = permanentRefusal(smtpError('RCPT TO', `550-5.1.1 first line\r\n550 5.1.1 second\u0000line ${'x'.repeat(1000)}`))!;
    expect(refused.reply).toMatch(/^550-5\.1\.1 first line {2}550 5\.1\.1 second line x+$/);
    expect(refused.reply).toHaveLength(EMAIL_REPLY_MAX_LENGTH);
    // Cut by characters, never inside one: no lone surrogate.
    const emoji = permanentRefusal(smtpError('RCPT TO', `550 ${'😀'.repeat(EMAIL_REPLY_MAX_LENGTH)}`))!;
    expect(Array.from(emoji.reply)).toHaveLength(EMAIL_REPLY_MAX_LENGTH);
    expect((emoji.reply as string & { isWellFormed(): boolean }).isWellFormed()).toBe(true);
  });
});
