import { seedDemo } from '../../platform/demo.js';
import { createPlatform, PlatformError } from '../../platform/index.js';
import { openStore } from '../../store/index.js';
import type { Command } from '../main.js';

const USAGE =
  'flowmark seed --demo [--account ID] [--password PASSWORD]\n\n' +
  'Creates a demo account (default id "demo") in the configured store (FLOWMARK_DATA or DATABASE_URL):\n' +
  'an administrator and users, pools and lanes (LIVE and ACCEPTANCE members, a rule lane, an\n' +
  'organisation chart), a project with versions, web interfaces, a custom list, vaults, i18n entries\n' +
  'and a request, so that every User and Request function can be tried with npx flowmark render.\n' +
  'Every demo user gets PASSWORD (default: a random one, printed).';

export const seed: Command = {
  name: 'seed',
  usage: USAGE,
  async run(args, io) {
    let demo = false;
    let accountId: string | undefined;
    let password: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--demo') demo = true;
      else if (a === '--account' && i + 1 < args.length) accountId = args[++i];
      else if (a === '--password' && i + 1 < args.length) password = args[++i];
      else {
        io.stderr.write(`flowmark seed: unknown option ${a}\nusage: ${USAGE}\n`);
        return 2;
      }
    }
    if (!demo) {
      io.stderr.write(`flowmark seed: nothing to seed (only --demo exists)\nusage: ${USAGE}\n`);
      return 2;
    }
    const store = await openStore();
    try {
      const s = await seedDemo(createPlatform(store), { accountId, password });
      const list = (record: Record<string, number>) =>
        Object.entries(record)
          .map(([name, id]) => `${name}=${id}`)
          .join(', ');
      io.stdout.write(
        `Demo account "${s.accountId}" created in ${store.location}.\n` +
          `  users (password ${password === undefined ? s.password : '(as given)'}): ${list(s.users)}\n` +
          `    admin is an account administrator; bob is blocked\n` +
          `  pools: ${list(s.pools)}\n` +
          `  lanes: ${list(s.lanes)}\n` +
          `  project ${s.projectId}, versions: ${list(s.versions)}; designed by ${s.designers.join(', ')} ` +
          `(and administrators); "On call" is its runtime lane\n` +
          `  web interfaces: ${list(s.webInterfaces)}\n` +
          `  custom lists: ${s.customLists.join(', ')}; request: ${s.requestId}\n` +
          `Try: echo 'Hello ${'${'}P_user.name}: ${'${'}get_lanes()?size} lanes, ${'${'}get_i18n("greeting")}' | ` +
          `npx flowmark render - --account ${s.accountId} --user ann --mode LIVE --project ${s.projectId}\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof PlatformError && e.code === 'conflict') {
        io.stderr.write(`flowmark seed: ${e.message} (choose another id with --account)\n`);
        return 1;
      }
      throw e;
    } finally {
      await store.close();
    }
  },
};
