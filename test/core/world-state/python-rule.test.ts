import { expect } from 'chai';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';
import { judgeEachCall, type ScriptedCall } from '../play.js';

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

  it('reads: `-c` code that only computes with standard modules and opens quoted paths for reading', () => {
    for (const command of [
      `python3 -c "import hashlib; print(hashlib.md5(b'password1').digest() == open('level3.hash.bin', 'rb').read())"`,
      `python3 -c "print(int('9fe1a', 16))"`,
      'python -c "import sys; print(sys.version)"',
      'python -c "import json,re; print(json.dumps({}))"',
      `python3 -c "lines = open('django/core/validators.py').readlines(); print(lines[113])"`,
      'python3 -c "from functools import partial; print(dir(partial(int)))"',
    ]) {
      expect(classifyShellCommand(command).effect, command).to.equal('read');
    }
  });

  it('`-c` code that may write, run code, reach the system, or answer differently each time is not a read', () => {
    for (const command of [
      `python3 -c "with open('fix.py', 'a') as f: f.write('x')"`,
      `python3 -c "open(path).read()"`,
      'python -c "import os; print(os.listdir())"',
      'python -c "import numpy as np; print(np.__version__)"',
      `python3 -c "print(f'{__import__(\\"os\\").system(\\"ls\\")}')"`,
      `python3 -c "exec('print(1)')"`,
      'python3 -c "import time; print(time.time())"',
      'python3 -c "import random; print(random.random())"',
      `python -c "from urllib.parse import urlsplit; print(urlsplit('http://x'))"`,
      'python3 -c "print(1)" > out.txt',
    ]) {
      expect(classifyShellCommand(command).effect, command).to.not.equal('read');
    }
  });

  it('InterCode-CTF: one password guess per turn, each printing False, is stopped as reworded reads of the same answer', () => {
    const guess = (n: number): ScriptedCall => ({
      tool: 'bash',
      args: { command: `python3 -c "import hashlib; print(hashlib.md5(b'password${n}').digest() == open('level3.hash.bin', 'rb').read())"` },
      outcome: { result: 'False\n' },
    });
    const { judged, stop } = judgeEachCall([1, 2, 3, 4, 5, 6, 7, 8].map(guess));
    expect(judged.slice(0, 2)).to.deep.equal(['new', 'seen']);
    expect(stop?.action === 'stop' && stop.reason).to.equal('stale_rounds');
    expect(judged.length).to.be.at.most(6);
  });
});
