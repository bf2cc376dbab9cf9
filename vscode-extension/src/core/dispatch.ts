/**
 * What happens when VS Code runs one of the server's commands (a CodeLens click, a code
 * action, the palette, another extension): by default the command goes to the server and its
 * result is returned; a command with a client handler is run by the handler, which decides
 * when to call the server and shows the result.
 */

/** Run a command on the server (workspace/executeCommand) and return its result. */
export type Send = (command: string, args: unknown[]) => Promise<unknown>;

/** Client-side handling of a server command. */
export type Handler = (args: unknown[], send: Send) => Promise<unknown>;

export class Dispatch {
  private readonly handlers = new Map<string, Handler>();

  constructor(private readonly send: Send) {}

  /** Handle `command` in the client from now on; dispose to send it straight to the server again. */
  handle(command: string, handler: Handler): { dispose(): void } {
    if (this.handlers.has(command)) throw new Error(`${command} already has a client handler`);
    this.handlers.set(command, handler);
    return {
      dispose: () => {
        if (this.handlers.get(command) === handler) this.handlers.delete(command);
      },
    };
  }

  run(command: string, args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(command);
    return handler !== undefined ? handler(args, this.send) : this.send(command, args);
  }
}

/** Which folder a command is about: its argument object's `uri` (a document) or `root` (a folder path). */
export interface CommandTarget {
  uri?: string;
  root?: string;
}

export function commandTarget(args: readonly unknown[]): CommandTarget {
  const first = args[0];
  if (typeof first !== "object" || first === null) return {};
  const { uri, root } = first as { uri?: unknown; root?: unknown };
  const target: CommandTarget = {};
  if (typeof uri === "string" && uri !== "") target.uri = uri;
  if (typeof root === "string" && root !== "") target.root = root;
  return target;
}
