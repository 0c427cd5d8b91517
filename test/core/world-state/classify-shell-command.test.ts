import { expect } from 'chai';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';

const effectOf = (command: string) => classifyShellCommand(command).effect;

describe('shell classifier: reads need proof, everything unclear may write (issue 18 #6)', () => {
  it('known read-only programs used read-only are reads', () => {
    for (const command of ['cat a.py', 'grep -rn "Foo" /testbed/src', 'ls -la', "sed -n '1,5p' f.py", 'git status', 'git diff HEAD~1', 'head -n 20 f | nl -ba']) {
      expect(effectOf(command), command).to.equal('read');
    }
  });

  it('writes, session changes, interpreters and redirections may write', () => {
    for (const command of ["sed -i 's/a/b/' f", 'echo x > f', 'cd /testbed && pytest', 'cd /testbed && grep -c x f', 'git commit -m x', 'cat <<EOF > f\nx\nEOF', 'python reproduce.py', 'rm -rf build', 'mkdir -p out']) {
      expect(effectOf(command), command).to.equal('write');
    }
  });

  // InterCode-Bash (eval/corpus/intercode-bash): 5,241 of its 8,462 command lines were read as
  // writes, most of them `find … -exec <read> {} \;` and pipelines through paste or a checksum.
  it('find -exec / -execdir / -ok is judged by the command it runs: a read-only command keeps find a read', () => {
    for (const command of [
      "find . -name '*.py' -exec md5sum {} \\;",
      'find . -type d -exec ls -l {} \\;',
      'find /testbed -type f -name "*.php" -exec cat {} + | wc -l',
      'find . -type f -exec grep -l foo {} +',
      'find . -type f -execdir wc -l {} \\;',
      'find . -name x -exec stat {} \\; -exec head -n 1 {} \\;',
    ]) {
      expect(effectOf(command), command).to.equal('read');
    }
    for (const command of [
      'find . -exec rm {} \\;',
      'find . -type f -exec sed -i s/a/b/ {} +',
      "find . -type f -execdir bash -c 'echo $0' {} \\;",
      'find . -exec cp {} /tmp \\;',
      'find . -ok rm {} \\;',
      'find . -exec grep -l x {} \\; -delete',
      'find . -exec md5sum {} \\; > sums.txt',
      'find . -fprint out.txt',
      'find . -exec md5sum {}', // no terminator: not understood
    ]) {
      expect(effectOf(command), command).to.equal('write');
    }
  });

  it('checksums, paste and a bare mount (which lists mounts) are reads; mount with a target mounts', () => {
    for (const command of ['md5sum a b', 'sha256sum -c SHA256SUMS', 'cksum f', "echo a | paste -d ' ' - -", 'paste a.txt b.txt', 'mount', 'mount -l', "mount | grep -E 'type cifs' | awk '{print $3}' | xargs -I {} ls -l {}"]) {
      expect(effectOf(command), command).to.equal('read');
    }
    for (const command of ['mount /dev/sda1 /mnt', 'mount -a', 'mount -t cifs //srv/share /mnt', 'md5sum a > sums.txt']) {
      expect(effectOf(command), command).to.equal('write');
    }
  });
});
