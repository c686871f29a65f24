/** The browser-facing surface of the embedded library: publishable-key routes under /browser/v1, with CORS for allowed origins. */
import { Module } from '@nestjs/common';
import { EmailCapturesModule } from '../email-captures/email-captures.module.js';
import { BrowserAdmission } from './http/browser-admission.js';
import { BrowserController } from './http/browser.controller.js';
import { LibraryController } from './http/library.controller.js';
import { PublishableKeyGuard } from './http/publishable-key.guard.js';

@Module({ imports: [EmailCapturesModule], controllers: [BrowserController, LibraryController], providers: [BrowserAdmission, PublishableKeyGuard] })
export class BrowserModule {}
