import { expect } from 'chai';
import { detectDocumentFormat } from '../../../src/replay/formats/detect-document-format.js';
import { readFixtureJson } from './formats-test-helpers.js';

describe('detectDocumentFormat', () => {
  it('dispatches a whole document on its keys', () => {
    expect(detectDocumentFormat({ resourceSpans: [] })).to.equal('otlp');
    expect(detectDocumentFormat(readFixtureJson('swe-agent-test-repo.traj'))).to.equal('swe-agent');
    expect(detectDocumentFormat(readFixtureJson('mini-swe-agent-v1.traj.json'))).to.equal('mini-swe-agent');
    expect(detectDocumentFormat(readFixtureJson('mini-swe-agent-v2.traj.json'))).to.equal('mini-swe-agent');
  });

  it('knows nothing else: a SWE-agent demonstration with only "history", non-objects; a bare message list is chat messages', () => {
    expect(detectDocumentFormat({ history: [] })).to.equal(undefined);
    expect(detectDocumentFormat({ trajectory: 'x' })).to.equal(undefined);
    expect(detectDocumentFormat({ messages: [], info: 'x' })).to.equal(undefined);
    expect(detectDocumentFormat([{ role: 'user', content: 'x' }])).to.equal('chat-messages');
    expect(detectDocumentFormat(null)).to.equal(undefined);
  });
});
