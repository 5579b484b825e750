// The gatehouse command line for hosts that embed Gatehouse (docs/decisions/0147-a-published-cli.md).
export { runGatehouseCli, findCommand, CLI_HELP, EXIT, type GatehouseCliIo } from './run.js';
export { defineConfig, loadConfigFile, openConfiguredStorage, ConfigFileError, CONFIG_FILE_NAMES, type GatehouseConfig, type ConfiguredStorage } from './config-file.js';
export type { Command, CommandContext, CommandOutput, CliStorage, MigrationStateLike, OptionSpec } from './command.js';
export { UsageError, requiredOption, optionalOption, listOption, type OptionValues } from './usage.js';
export { parseCommandLine } from './command-line.js';
export { CLI_COMMANDS, clientsCreate, clientsList, clientsShow, clientsUpdate, clientsDelete, keysList, keysRotate, migrate, migrateStatus } from './commands/index.js';
export { clientJson, clientMarks, clientText, LINK_OPTIONS, linkLines, linkOptions, openIdJson, openIdLines, openIdOptions, OPENID_OPTIONS, presentationJson, resourceServerJson, resourceServerLine } from './commands/client-output.js';
