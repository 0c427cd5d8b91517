/**
 * The program a command's first word names: its basename (`/usr/bin/curl` is `curl`); '' for
 * no word. One definition for the shell classifier and the list of commands that change state
 * elsewhere, so both read `/usr/bin/gh workflow run` as `gh`.
 */
export function programName(word: string | undefined): string {
  if (word === undefined) return '';
  return word.slice(word.lastIndexOf('/') + 1);
}
