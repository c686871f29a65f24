/**
 * The share pollers' queues (src/platform/projections/due-queue.ts).
 *
 * - `share_emails_due_at`: one document per email share whose emails are not decided yet, due when the
 *   share was made, then at the next attempt its last failed share-instructions call scheduled
 *   (at once when an attempt scheduled none). Sent or blocked emails leave the queue.
 * - `reminders_due_at`: one document per reminder scheduled and neither sent nor cancelled, due at
 *   its time.
 */
import { dueAfterAttempt, dueQueueProjection } from '../../platform/projections/due-queue.js';
import {
  ReminderEmailCancelled,
  ReminderEmailScheduled,
  ReminderEmailSent,
  ShareCreated,
  ShareEmailsBlocked,
  ShareEmailsSent,
  ShareInstructionsAttempted,
} from '../domain/share-events.js';

export const shareEmailsDueProjection = dueQueueProjection<ShareCreated | ShareInstructionsAttempted | ShareEmailsSent | ShareEmailsBlocked>()({
  name: 'share_emails_due_at',
  handles: ['ShareCreated', 'ShareInstructionsAttempted', 'ShareEmailsSent', 'ShareEmailsBlocked'],
  subject: (event) => event.data.shareId,
  dueAfter(event, queued) {
    switch (event.type) {
      case 'ShareCreated':
        // A social share sends no emails: nothing to ask or send.
        return event.data.channel === 'email' ? event.data.createdAt : null;
      case 'ShareInstructionsAttempted':
        return dueAfterAttempt(event.data, queued);
      default:
        return null;
    }
  },
});

export const remindersDueProjection = dueQueueProjection<ReminderEmailScheduled | ReminderEmailSent | ReminderEmailCancelled>()({
  name: 'reminders_due_at',
  handles: ['ReminderEmailScheduled', 'ReminderEmailSent', 'ReminderEmailCancelled'],
  subject: (event) => event.data.shareId,
  dueAfter: (event) => (event.type === 'ReminderEmailScheduled' ? event.data.dueAt : null),
});
