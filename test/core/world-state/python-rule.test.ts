import { expect } from 'chai';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';

describe('shell classifier: python (issue 18 #6)', () => {
  it('reads: `python -m pip list/show/freeze/check` and version queries, for python, python3, python3.11', () => {
    for (const command of ['python -m pip list', 'python3 -m pip show requests', 'python3.11 -m pip freeze', 'python -m pip check', 'python --version', 'python3 -V', '/usr/bin/python3 -m pip list']) {
      expect(classifyShellCommand(command).effect, command).to.equal('read');
    }
  });

  it('everything else a python command does may write: scripts, -c, -m with other modules, pip install', () => {
    for (const command of ['python reproduce.py', 'python -c "open(\'x\',\'w\')"', 'python -m pytest', 'python -m pip install requests', 'python3 -m pip uninstall -y six', './python -m pip list']) {
      expect(classifyShellCommand(command).effect, command).to.not.equal('read');
    }
  });
});
