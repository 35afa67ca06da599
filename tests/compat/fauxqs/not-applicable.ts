// Thrown when a fauxqs test reaches for something only fauxqs itself has (its
// in-process APIs, its internal classes, SNS or S3). The runner's summary counts
// such tests as "not applicable" rather than as lqsd failures.
export const NOT_APPLICABLE = "NOT_APPLICABLE";

export class NotApplicableError extends Error {
  constructor(what: string) {
    super(`${NOT_APPLICABLE}: ${what} is not part of SQS; not applicable to lqsd`);
    this.name = "NotApplicableError";
  }
}
