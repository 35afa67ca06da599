// Replaces fauxqs's src/sqs/sqsStore.js: tests that unit-test fauxqs's store are not applicable.
import { NotApplicableError } from "../not-applicable.ts";

export class SqsStore {
  constructor() {
    throw new NotApplicableError("fauxqs's SqsStore class (unit test of fauxqs internals)");
  }
}
export class SqsQueue {
  constructor() {
    throw new NotApplicableError("fauxqs's SqsQueue class (unit test of fauxqs internals)");
  }
}
