import { expect } from 'chai';
import { parseMiniSweAgentObservation } from '../../../src/replay/formats/parse-mini-swe-agent-observation.js';

describe('parseMiniSweAgentObservation', () => {
  it('reads return code and output; a silent success is structurally empty', () => {
    expect(parseMiniSweAgentObservation('<returncode>0</returncode>\n<output>\na.py\n</output>')).to.deep.equal({ result: { returncode: 0, output: 'a.py\n' } });
    expect(parseMiniSweAgentObservation('<returncode>0</returncode>\n<output>\n</output>')).to.deep.equal({ result: { returncode: 0, output: '' } });
    expect(parseMiniSweAgentObservation('<returncode>2</returncode>\n<output>\nls: x: No such file\n</output>')).to.deep.equal({ result: { returncode: 2, output: 'ls: x: No such file\n' } });
  });

  it('keeps an output that itself contains the closing tag whole', () => {
    expect(parseMiniSweAgentObservation('<returncode>0</returncode>\n<output>\necho "</output>"\n</output>')).to.deep.equal({ result: { returncode: 0, output: 'echo "</output>"\n' } });
  });

  it('reads the long-output variant as head, an elided marker and tail, ignoring the warning', () => {
    const text =
      '<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\n</warning><output_head>\nfirst\n</output_head>\n<elided_chars>\n12000 characters elided\n</elided_chars>\n<output_tail>\nlast\n</output_tail>';
    expect(parseMiniSweAgentObservation(text)).to.deep.equal({ result: { returncode: 0, output: 'first\n[12000 characters elided]\nlast' } });
  });

  it('reads the JSON observation template of mini.yaml the same way', () => {
    expect(parseMiniSweAgentObservation('{\n  "returncode": 0,\n  "output": ""\n}')).to.deep.equal({ result: { returncode: 0, output: '' } });
    expect(parseMiniSweAgentObservation('{"returncode": 1, "output_head": "a", "output_tail": "z", "elided_chars": 5, "warning": "Output too long."}')).to.deep.equal({
      result: { returncode: 1, output: 'a\n[5 characters elided]\nz' },
    });
  });

  it('makes an exception or a v1 timeout an error, typed timeout when it timed out', () => {
    expect(
      parseMiniSweAgentObservation("<exception>An error occurred while executing the command: Command 'sleep 9' timed out after 5 seconds</exception>\n<returncode>-1</returncode>\n<output>\n</output>"),
    ).to.deep.equal({ error: { type: 'timeout', message: "An error occurred while executing the command: Command 'sleep 9' timed out after 5 seconds" } });
    expect(parseMiniSweAgentObservation('<exception>boom</exception>\n<returncode>-1</returncode>\n<output>\n</output>')).to.deep.equal({ error: { type: 'exception', message: 'boom' } });
    const v1 = 'The last command <command>sleep 100</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>';
    expect(parseMiniSweAgentObservation(v1)).to.deep.equal({ error: { type: 'timeout', message: v1 } });
  });

  it('keeps anything else (a submission, free text) as the text it is', () => {
    expect(parseMiniSweAgentObservation('diff --git a/a b/a\n')).to.deep.equal({ result: 'diff --git a/a b/a\n' });
    expect(parseMiniSweAgentObservation('{"not": "an observation"}')).to.deep.equal({ result: '{"not": "an observation"}' });
  });
});
