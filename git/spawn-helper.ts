// The program of the git spawn helper (see spawn-helper-client.ts): a small process that starts git
// for the service and sends back what it printed. It keeps no state; the service restarts it if it dies.
import { exec } from 'dugite';
import type { HelperRequest, HelperReply } from './spawn-helper-protocol.js';

// Each request carries git's whole environment: nothing of this process's own may leak into it
// (dugite merges process.env under the variables it is given).
for (const name of Object.keys(process.env)) delete process.env[name];

function reply(message: HelperReply): void {
  // The service went away while git ran: nobody is left to answer.
  if (process.connected) process.send!(message);
}

async function run(request: HelperRequest): Promise<void> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const result = await exec(request.args, request.cwd, {
      env: request.env,
      stdin: request.input,
      encoding: request.encoding,
      maxBuffer: request.maxBuffer,
      signal,
      killSignal: 'SIGKILL',
    });
    reply({ id: request.id, ok: true, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode });
  } catch (err) {
    const code = (err as { cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code;
    reply({
      id: request.id, ok: false, timedOut: signal.aborted, code: typeof code === 'string' ? code : null,
      message: (err as Error).message, stderr: String((err as { stderr?: unknown }).stderr ?? ''),
    });
  }
}

process.on('message', (request: HelperRequest) => void run(request));
// The service exited or was killed: so does its helper (git processes already started finish on their own).
process.on('disconnect', () => process.exit(0));
