/** What other features may use of widgets (docs/architecture.md): nothing else of it is imported from outside. */
export { ChangeWidgetCommand, CreateWidgetCommand } from './commands/widget-commands.js';
export { DEFAULT_CRITERIA, OBJECTIVES, REWARD_TYPES } from './domain/widget.js';
export type { FraudChecks, RewardCriteria } from './domain/widget.js';
export { V1_INCENTIVE_TYPES, v1CampaignExcerpt, v1IncentiveType } from './http/widget.presenters.js';
export { V1_CAMPAIGN_EXCERPT } from './http/widget.schemas.js';
export { WidgetQueries, isOffered } from './read-models/widget-queries.js';
export type { WidgetNoun } from './read-models/widget-queries.js';
export { widgetsProjection } from './read-models/widgets.projection.js';
export type { WidgetDoc } from './read-models/widgets.projection.js';
export { WidgetsModule } from './widgets.module.js';
