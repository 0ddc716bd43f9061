// A worker thread in TypeScript for source-entry.test.ts: answers with what it was given, typed.
import { parentPort, workerData } from 'node:worker_threads';

const given: { readonly question: string } = workerData as { question: string };
parentPort?.postMessage(`${given.question}: 42`);
