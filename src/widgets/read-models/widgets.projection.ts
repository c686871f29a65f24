/** The widgets read model: v2 widgets, v1 campaigns, and the reward rules for evaluation. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { DEFAULT_CRITERIA, DEFAULT_FRAUD_CHECKS, WidgetEvent, WidgetSettings } from '../domain/widget.js';

/** Settings recorded before a criterion or check existed read with its default. */
function upcast(settings: WidgetSettings): WidgetSettings {
  return {
    ...settings,
    rewardCriteria: { ...DEFAULT_CRITERIA, ...settings.rewardCriteria },
    fraudChecks: { ...DEFAULT_FRAUD_CHECKS, ...settings.fraudChecks },
  };
}

export interface WidgetDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  widget_group_id: string;
  name: string;
  settings: WidgetSettings;
  last_modified_at: string;
}

export const widgetsCollection: CollectionDef = {
  name: 'widgets',
  indexes: [['merchant_id'], ['merchant_id', 'widget_group_id'], ['merchant_id', 'name']],
};

export const widgetsProjection = defineProjection<WidgetDoc, WidgetEvent>()({
  name: 'widgets',
  collection: widgetsCollection,
  handles: ['WidgetCreated', 'WidgetChanged'],
  keys: (event) => [docKey(event.data.widgetId)],
  evolve(doc, event) {
    switch (event.type) {
      case 'WidgetCreated': {
        const { widgetId, merchantId, createdAt, ...recorded } = event.data;
        const settings = upcast(recorded);
        return {
          _id: docKey(widgetId),
          id: widgetId,
          merchant_id: merchantId,
          widget_group_id: settings.widgetGroupId,
          name: settings.name,
          settings,
          created_at: createdAt,
          last_modified_at: createdAt,
        };
      }
      case 'WidgetChanged': {
        if (!doc) return null;
        const settings = upcast({ ...doc.settings, ...event.data.changes });
        return { ...doc, settings, widget_group_id: settings.widgetGroupId, name: settings.name, last_modified_at: event.data.changedAt };
      }
    }
  },
});
