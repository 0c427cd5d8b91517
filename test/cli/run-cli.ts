// Runs the CLI's main() as a process through tsx, for manual checks and exit-code tests
// when dist/ is not built.
import { main } from '../../src/cli/main.js';
process.exitCode = await main(process.argv.slice(2));
