import type { Command } from '../main.js';
import { ConfigError } from '../../config/index.js';
import { countSecrets, resealSecrets } from '../../platform/reseal.js';
import { parseSecretKey, SecretBox, secretBox } from '../../platform/secrets.js';
import { openStore } from '../../store/index.js';
import { commandErrors } from '../command-errors.js';
import { errorMessage } from '../../errors/index.js';

const USAGE =
  'flowmark secrets status\n' +
  '       flowmark secrets seal\n\n' +
  "Project vaults and OAuth2 tokens are stored sealed with the deployment's secret key\n" +
  '(FLOWMARK_SECRET_KEY, else FLOWMARK_SECRET_KEY_FILE, else <FLOWMARK_DATA>/secret.key made on first use).\n' +
  '`status` counts them by key; `seal` seals those stored before sealing, and — to rotate the key —\n' +
  'those of the previous key given as FLOWMARK_SECRET_KEY_OLD, with the current key, in one transaction.\n' +
  'Uses the same store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

export const secrets: Command = {
  name: 'secrets',
  usage: USAGE,
  async run(args, io) {
    const [action, ...rest] = args;
    if (action !== 'status' && action !== 'seal')
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (rest.length > 0) return usageError(io, `unexpected argument ${rest[0]}`);
    let box: SecretBox;
    let old: SecretBox | undefined;
    try {
      box = secretBox();
      const oldKey = process.env.FLOWMARK_SECRET_KEY_OLD;
      if (oldKey) old = new SecretBox(parseSecretKey(oldKey, 'FLOWMARK_SECRET_KEY_OLD'));
    } catch (e) {
      if (e instanceof ConfigError) return failure(io, e.message);
      throw e;
    }
    const store = await openStore();
    try {
      if (action === 'status') {
        const c = await countSecrets(store, box);
        io.stdout.write(
          `key ${box.fingerprint}: ${c.sealed} sealed with it, ${c.plain} not sealed, ${c.otherKey} sealed with another key\n`,
        );
        return 0;
      }
      const written = await resealSecrets(store, box, old);
      io.stdout.write(`sealed ${written} with key ${box.fingerprint}\n`);
      return 0;
    } catch (e) {
      return failure(io, errorMessage(e));
    } finally {
      await store.close();
    }
  },
};

const { usageError, failure } = commandErrors('secrets', USAGE);
