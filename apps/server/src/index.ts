export { loadConfig, ConfigError, CONFIG_VARIABLES, type Config } from './config.js';
export { createContainer, resolve, TOKENS, systemClock, settingsFrom, type Token } from './container.js';
export { encryptSigningKeys, KeyDecryptionError } from '@gatehouse/storage-sqlite';
export { createLogger, type Logger } from './logger.js';
export { runCli, type CliIo } from './cli/run.js';
export { startServer, type RunningServer } from './server.js';
