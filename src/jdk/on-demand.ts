/**
 * A CommonJS package and Node built-ins that few renders need, required on first use instead of
 * imported when the template engine loads: `flowmark render` of a template that converts no
 * charset, reads no time-zone rules and runs no unbounded regular expression loads none of them
 * (docs/architecture.md, "The CLI loads on demand"; test/cli/startup.test.ts).
 */
import { createRequire } from 'node:module';

type Iconv = typeof import('iconv-lite');
type Zlib = typeof import('node:zlib');
type WorkerThreads = typeof import('node:worker_threads');

const require = createRequire(import.meta.url);
let iconvLite: Iconv | undefined;
let zlibModule: Zlib | undefined;
let workerThreadsModule: WorkerThreads | undefined;

/** iconv-lite (charsets other than UTF-8 and UTF-16). */
export function iconv(): Iconv {
  return (iconvLite ??= require('iconv-lite') as Iconv);
}

/** node:zlib (the compressed time-zone rules). */
export function zlib(): Zlib {
  return (zlibModule ??= require('node:zlib') as Zlib);
}

/** node:worker_threads (regular expressions run off the main thread). */
export function workerThreads(): WorkerThreads {
  return (workerThreadsModule ??= require('node:worker_threads') as WorkerThreads);
}
