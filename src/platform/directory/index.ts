/**
 * The directory of an account: users, pools and lanes with their membership per mode, lane rules
 * and jobs, and the organisation charts. Every method takes the account id first.
 */
import type { Store } from '../../store/index.js';
import type { ContentionPolicy } from '../model.js';
import { changeCounts, type ChangeCount } from '../change-counts.js';
import { LaneJobs } from './jobs.js';
import { Lanes } from './lanes.js';
import { Organisation } from './organisation.js';
import { Users } from './users.js';

export { editInput, setAtPath, CAST_CLASS_EXCEPTION, EXPECTED_VALUE, MALFORMED_OBJECT } from './json-path.js';
export type { Json } from './json-path.js';
export { hashPassword, verifyPassword } from './passwords.js';
export type { Lane, NewLane, Pool, MembershipSource } from './lanes.js';
export { MAX_PAGE_SIZE } from './lanes.js';
export type { Delegation, NewUser, User, UserChanges, UserRef, UserStatus } from './users.js';
export { LaneJobs, Lanes, Organisation, Users };

export class Directory {
  readonly users: Users;
  readonly lanes: Lanes;
  readonly jobs: LaneJobs;
  readonly organisation: Organisation;

  /** `changeCount`: where `changes` is counted, shared by the threads of a process (PlatformOptions.changeCounts). */
  constructor(
    store: Store,
    clock: () => number,
    contention?: ContentionPolicy,
    private readonly changeCount: ChangeCount = changeCounts().directory,
  ) {
    this.lanes = new Lanes(store, clock, contention);
    this.jobs = new LaneJobs(store, this.lanes, clock);
    this.users = new Users(
      store,
      clock,
      (accountId, userId) => this.jobs.userChanged(accountId, userId),
      () => this.changeCount.bump(),
    );
    this.organisation = new Organisation(store);
  }

  /**
   * Writes to users and delegations made through this directory, or any sharing its count: what
   * an evaluation thread keeps of users across requests is read again when it moved
   * (ProcessRunner.startReads), so a change on one thread of a server is seen on all at once.
   */
  get changes(): number {
    return this.changeCount.value;
  }
}
