import { basename } from 'node:path';

/**
 * The run id of a trajectory file: its name without directory and extension
 * (`astropy__astropy-12907.traj` and `astropy__astropy-12907.traj.json` are both
 * `astropy__astropy-12907`), which is the task instance id for SWE-agent and mini-swe-agent
 * batch runs. stdin keeps its `<stdin>` name.
 */
export function trajectoryRunId(file: string): string {
  const name = basename(file).replace(/\.gz$/i, '');
  const stem = name.replace(/(\.traj)?\.jsonl?$/i, '').replace(/\.traj$/i, '');
  return stem.length > 0 ? stem : name;
}
