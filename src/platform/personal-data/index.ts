export * from './key-store.js';
export * from './personal-fields.js';
export { PERSONAL_DATA, PersonalDataEventStore, personalDataOf } from './personal-data-event-store.js';
export { SqliteKeyStore } from './sqlite-key-store.js';
export { MongoKeyStore } from './mongo-key-store.js';
export * from './read-model-erasure.js';
