export type { Clock } from './clock.js';
export type { IdGenerator } from './ids.js';
export type * from './repositories.js';
export type * from './services.js';
export type * from './users.js';
export type * from './client-metadata-documents.js';
export type * from '../product/ports.js';
