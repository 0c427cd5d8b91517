import { expect } from 'chai';
import { trajectoryRunId } from '../../../src/replay/formats/trajectory-run-id.js';

describe('trajectoryRunId', () => {
  it('is the file name without directory and trajectory extensions', () => {
    expect(trajectoryRunId('/runs/x/astropy__astropy-12907.traj')).to.equal('astropy__astropy-12907');
    expect(trajectoryRunId('out/astropy__astropy-12907/astropy__astropy-12907.traj.json')).to.equal('astropy__astropy-12907');
    expect(trajectoryRunId('a.traj.json.gz')).to.equal('a');
    expect(trajectoryRunId('b.json')).to.equal('b');
    expect(trajectoryRunId('<stdin>')).to.equal('<stdin>');
  });
});
