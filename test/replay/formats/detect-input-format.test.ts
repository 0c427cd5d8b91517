import { expect } from 'chai';
import { detectInputFormat, READABLE_FORMATS } from '../../../src/replay/formats/detect-input-format.js';

describe('detectInputFormat', () => {
  it('keeps the existing formats: loopguard JSONL, OTLP per line, a pretty-printed document', () => {
    expect(detectInputFormat('{"run":"r","round":1,"tool":"t","result":1}')).to.equal('jsonl');
    // A damaged transcript line is still a transcript: the line is reported, the rest replayed.
    expect(detectInputFormat('{"run": "r", "round": 2')).to.equal('jsonl');
    expect(detectInputFormat('{"tool":"t"}')).to.equal('jsonl');
    expect(detectInputFormat('not json')).to.equal('jsonl');
    expect(detectInputFormat('{"resourceSpans":[]}')).to.equal('otlp');
    expect(detectInputFormat('{')).to.equal('otlp-document');
    expect(detectInputFormat('  {  ')).to.equal('otlp-document');
    expect(detectInputFormat('[')).to.equal('otlp-document');
  });

  it('reads trajectories written on one line by their keys', () => {
    expect(detectInputFormat('{"environment":"swe_main","trajectory":[],"info":{}}')).to.equal('swe-agent');
    expect(detectInputFormat('{"info":{"exit_status":"Submitted"},"messages":[]}')).to.equal('mini-swe-agent');
    // "messages" without "info" is not a mini-swe-agent trajectory.
    expect(detectInputFormat('{"messages":[]}')).to.equal('unknown');
  });

  it('recognises a Claude Code session from its first event, whatever the event', () => {
    expect(detectInputFormat('{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}')).to.equal('claude-code');
    expect(detectInputFormat('{"type":"summary","summary":"Fix the build","leafUuid":"u1"}')).to.equal('claude-code');
    expect(detectInputFormat('{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}')).to.equal('claude-code');
    expect(detectInputFormat('{"type":"ai-title","aiTitle":"Fix login","sessionId":"x"}')).to.equal('claude-code');
    expect(detectInputFormat('{"type":"custom","value":1}')).to.equal('unknown');
  });

  it('calls any other JSON object unknown, and the format list names every format', () => {
    expect(detectInputFormat('{"foo":1}')).to.equal('unknown');
    for (const name of ['loopguard JSONL', 'OTLP JSON', 'SWE-agent .traj', 'mini-swe-agent .traj.json', 'Claude Code session .jsonl']) {
      expect(READABLE_FORMATS).to.include(name);
    }
  });
});
