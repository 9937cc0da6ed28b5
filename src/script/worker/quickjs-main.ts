/** The QuickJS sandbox worker thread's entry (../pool.ts starts it from dist/, built). */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { QuickJSWorkerData } from './messages.js';
import { startQuickJSWorker } from './quickjs.js';

const port = parentPort!;
startQuickJSWorker({
  on: (event, listener) => port.on(event, listener),
  post: (message) => port.postMessage(message),
  workerData: workerData as QuickJSWorkerData,
  receive: receiveMessageOnPort,
});
