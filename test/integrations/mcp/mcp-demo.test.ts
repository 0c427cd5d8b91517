import { expect } from 'chai';
import { runMcpDemo } from '../../../examples/demo/integrations/mcp.js';

describe('npm run demo -- mcp', function () {
  this.timeout(30_000);
  it('stops the looping agent and leaves the honest one alone, over the real filesystem server', async () => {
    const lines: string[] = [];
    expect(await runMcpDemo((line) => lines.push(line))).to.equal(true);
    const text = lines.join('\n');
    expect(text).to.contain('refused (repeat.run_wide)');
    expect(text).to.match(/stopped \(stale_rounds\)/);
    expect(text).to.contain('run finished, not stopped; 0 refused, 6 executed');
  });
});
