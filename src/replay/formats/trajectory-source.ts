import type { ReplayCall } from '../replay-call.js';
import type { ReplayInputError } from '../replay-input-error.js';

/** Where a whole-document trajectory came from and the run its calls belong to. */
export interface TrajectorySource {
  file: string;
  /** Line the document starts on; every call and problem of the document points at it. */
  line: number;
  run: string;
}

/**
 * The calls of one trajectory, in order, plus its bad entries (each skipped, the rest kept).
 * A document that is not a trajectory at all throws a ReplayInputError instead.
 */
export interface TrajectoryCalls {
  calls: ReplayCall[];
  problems: ReplayInputError[];
}
