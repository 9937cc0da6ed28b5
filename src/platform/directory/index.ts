/**
 * The directory of an account: users, pools and lanes with their membership per mode, lane rules
 * and jobs, and the organisation charts. Every method takes the account id first.
 */
import type { Store } from '../../store/index.js';
import type { ContentionPolicy } from '../model.js';
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

  constructor(store: Store, clock: () => number, contention?: ContentionPolicy) {
    this.lanes = new Lanes(store, clock, contention);
    this.jobs = new LaneJobs(store, this.lanes, clock);
    this.users = new Users(store, clock, (accountId, userId) => this.jobs.userChanged(accountId, userId));
    this.organisation = new Organisation(store);
  }
}
