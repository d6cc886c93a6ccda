import { spawn, type ChildProcess } from 'node:child_process';

/** A service's real entry point running as a child process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Where it listens, as its start line says (`listening at http://127.0.0.1:<port>`). */
  baseUrl: string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
}

/**
 * Starts a service's entry point (`main`, TypeScript run by tsx from source) with `env` over this
 * process's environment; resolves once it listens, rejects if it exits first. Its stdout must log
 * at info level or below (for the start line); its stderr is this process's.
 */
export async function startServiceProcess(main: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', main], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`service exited early with ${code}: ${output.slice(-500)}`)));
  });
  child.stdout!.resume();
  return { child, baseUrl, exited };
}

/** How `sendUntilKilled` loads the process. */
export interface KillMidFlightOptions<T> {
  /** Concurrent senders, each sending again as soon as its last send is answered. */
  senders: number;
  /** The process is killed (SIGKILL) once this many sends have been acknowledged. */
  killAfter: number;
  /** One send; resolves with what to remember once the service acknowledged it, throws if it refused it. */
  send: (senderIndex: number, acknowledgedSoFar: number) => Promise<T>;
}

/**
 * Loads the service with concurrent sends and kills it with SIGKILL in the middle of them, once
 * `killAfter` were acknowledged. Answers and failures that come after the kill are not counted;
 * a failure before it fails the call. Resolves with every acknowledged send once the process has exited.
 */
export async function sendUntilKilled<T>(service: ServiceProcess, options: KillMidFlightOptions<T>): Promise<T[]> {
  const acknowledged: T[] = [];
  let killed = false;
  try {
    const sender = async (senderIndex: number) => {
      while (!killed) {
        try {
          const value = await options.send(senderIndex, acknowledged.length);
          if (killed) return;
          acknowledged.push(value);
          if (acknowledged.length >= options.killAfter) {
            killed = true;
            service.child.kill('SIGKILL');
          }
        } catch (error) {
          if (killed) return;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: options.senders }, (_, i) => sender(i)));
    await service.exited;
  } finally {
    service.child.kill('SIGKILL');
  }
  return acknowledged;
}
