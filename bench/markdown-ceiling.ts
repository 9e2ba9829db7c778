// The renderer in a bare loop, in a thread of its own (markdown.ts starts one per pool thread, in a
// process apart from the server's), so the ceiling is measured as the pool would run it.
import { parentPort, workerData } from 'node:worker_threads';
import { renderDocument } from '../workers/markup/render.js';
import { benchRenderRequest } from './markdown-document.js';

const { text, seconds } = workerData as { text: string; seconds: number };
const request = benchRenderRequest(text);
const end = Date.now() + seconds * 1000;
let n = 0;
while (Date.now() < end) {
  renderDocument(request);
  n++;
}
parentPort!.postMessage(n / seconds);
