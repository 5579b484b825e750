// The config file of `npx gatehouse` (@gatehouse/cli): the service's own database and Gatehouse
// settings, as server.js opens them, so `gatehouse clients create` checks clients against the
// service's scopes and writes them into its gh_ tables. Same environment as server.js.
import { defineConfig } from '@gatehouse/cli';
import { readConfig } from './src/config.js';
import { openOrdersDatabase } from './src/database.js';
import { openOrdersStorage, ordersSettings } from './src/gatehouse.js';

const config = readConfig(process.env);

export default defineConfig({
  storage: async () => {
    const db = openOrdersDatabase(config.database);
    const storage = await openOrdersStorage(db, config.keySecret);
    // The command closes the storage; the connection is the service's, so it is closed here too.
    return {
      ...storage,
      close: async () => {
        await storage.close();
        db.close();
      },
    };
  },
  settings: ordersSettings(config.issuer),
  describe: `SQLite ${config.database}`,
});
