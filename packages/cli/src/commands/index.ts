import type { Command } from '../command.js';
import { clientsCreate, clientsDelete, clientsList, clientsShow, clientsUpdate } from './clients.js';
import { keysList, keysRotate } from './keys.js';
import { migrate, migrateStatus } from './migrations.js';

export { clientsCreate, clientsDelete, clientsList, clientsShow, clientsUpdate } from './clients.js';
export { keysList, keysRotate } from './keys.js';
export { migrate, migrateStatus } from './migrations.js';

/** Every command of `@gatehouse/cli`, `migrate status` before `migrate` (the longer path matches first). */
export const CLI_COMMANDS: readonly Command[] = [migrateStatus, migrate, clientsCreate, clientsList, clientsShow, clientsUpdate, clientsDelete, keysList, keysRotate];
