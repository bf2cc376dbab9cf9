/**
 * What the extension lets a workspace decide. A repository may come from a stranger: its
 * settings, its `.nano-brain.yml` and the memory built from it (commit messages, transcripts)
 * are input, not instruction.
 */

/** The only commands a link in a hover may run: the "why" view (`command:nano-brain.why`). */
export const HOVER_COMMANDS: readonly string[] = ["nano-brain.why"];

/** The language client's `markdown.isTrusted`: command links limited to HOVER_COMMANDS. */
export function hoverMarkdownTrust(): { enabledCommands: readonly string[] } {
  return { enabledCommands: HOVER_COMMANDS };
}
