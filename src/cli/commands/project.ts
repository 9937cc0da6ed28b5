import { errorMessage } from '../../errors/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CliIo, Command } from '../main.js';
import { CollectionError } from '../../platform/collections/index.js';
import { createPlatform, PlatformError } from '../../platform/index.js';
import { exportProject, importBundle, packBundle, unpackBundle } from '../../platform/bundles/index.js';
import { chosenAccount } from '../account.js';
import { openStore } from '../../store/index.js';
import { commandErrors } from '../command-errors.js';

const USAGE =
  'flowmark project export ID --out FILE [--with-documents] [--with-secrets] [--collections A,B] [--account ID]\n' +
  '       flowmark project import FILE [--dry-run] [--project ID] [--account ID]\n\n' +
  '`export` writes the project as a bundle (a zip of JSON files, format flowmark-bundle/1): its\n' +
  'versions, process definitions, composite APIs, web interfaces, custom lists, i18n, pools and lanes,\n' +
  "the collections (default every collection of the account) with their indexes, and its vaults' keys.\n" +
  "--with-documents adds the collections' documents; --with-secrets the vaults' values, in clear.\n" +
  "`import` brings a bundle into the project titled as the bundle's (or --project ID, or a new one),\n" +
  'printing each create, update and delete; all or nothing. --dry-run only prints them.\n' +
  'The account defaults to "default", or the only account of the store. Runs as an administrator.\n' +
  'Uses the same store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL).';

export const project: Command = {
  name: 'project',
  usage: USAGE,
  async run(args, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args,
        options: {
          account: { type: 'string' },
          out: { type: 'string' },
          'with-documents': { type: 'boolean', default: false },
          'with-secrets': { type: 'boolean', default: false },
          collections: { type: 'string' },
          'dry-run': { type: 'boolean', default: false },
          project: { type: 'string' },
        },
        strict: true,
        allowPositionals: true,
      });
    } catch (e) {
      return usageError(io, errorMessage(e));
    }
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    if (action !== 'export' && action !== 'import')
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (rest.length !== 1) return usageError(io, `${action}: 1 argument expected`);
    const [argument] = rest as [string];
    let projectId: number | undefined;
    if (action === 'export') {
      if (!/^[1-9]\d*$/.test(argument))
        return usageError(io, `export: invalid project id ${JSON.stringify(argument)}`);
      if (values.out === undefined) return usageError(io, 'export: --out FILE is required');
    } else if (values.project !== undefined) {
      if (!/^[1-9]\d*$/.test(values.project))
        return usageError(io, `--project: invalid project id ${JSON.stringify(values.project)}`);
      projectId = Number(values.project);
    }
    let archive: Buffer | undefined;
    if (action === 'import') {
      try {
        archive = readFileSync(argument);
      } catch {
        return failure(io, `cannot read ${argument}`);
      }
    }

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const chosen = await chosenAccount(platform, values.account);
      if ('error' in chosen) return failure(io, chosen.error);
      const { accountId } = chosen;
      if (action === 'export') {
        const id = Number(argument);
        const files = await exportProject(platform, accountId, id, {
          withDocuments: values['with-documents'],
          withSecrets: values['with-secrets'],
          collections: values.collections?.split(',').filter((c) => c !== ''),
        });
        const title = (await platform.projects.require(accountId, id)).title;
        try {
          writeFileSync(values.out!, await packBundle(files));
        } catch (e) {
          return failure(io, `cannot write ${values.out}: ${errorMessage(e)}`);
        }
        io.stdout.write(
          `exported project ${id} ${JSON.stringify(title)} (account ${accountId}) to ${values.out}: ${files.size} file(s)\n`,
        );
        if (values['with-secrets'])
          io.stderr.write(`${values.out} holds the project's vault values in clear: keep it as a secret\n`);
        return 0;
      }
      const files = await unpackBundle(archive!, argument);
      const result = await importBundle(platform, store, accountId, files, argument, {
        projectId,
        dryRun: values['dry-run'],
      });
      printChanges(io, result.changes);
      const target =
        result.projectId === null
          ? `a new project ${JSON.stringify(result.title)}`
          : `project ${result.projectId} ${JSON.stringify(result.title)}`;
      if (result.changes.length === 0)
        io.stdout.write(`${target} (account ${accountId}) is up to date with ${argument}\n`);
      else if (!result.applied)
        io.stdout.write(
          `dry run: ${result.changes.length} change(s) to ${target} (account ${accountId}); nothing written\n`,
        );
      else
        io.stdout.write(
          `imported ${argument} into ${target} (account ${accountId}): ${result.changes.length} change(s)\n`,
        );
      return 0;
    } catch (e) {
      if (e instanceof PlatformError || e instanceof CollectionError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

function printChanges(io: CliIo, changes: ReadonlyArray<{ action: string; path: string }>): void {
  for (const change of changes) io.stdout.write(`${change.action.padEnd(6)}  ${change.path}\n`);
}

const { usageError, failure } = commandErrors('project', USAGE);
