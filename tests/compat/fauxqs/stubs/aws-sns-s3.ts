// Replaces @aws-sdk/client-sns and @aws-sdk/client-s3: lqsd serves SQS only, so
// tests that need SNS or S3 are not applicable (and the packages are not installed).
import { NotApplicableError } from "../not-applicable.ts";

function unavailable(name: string) {
  return class {
    constructor() {
      throw new NotApplicableError(`${name} (SNS/S3)`);
    }
  };
}
export const SNSClient = unavailable("SNSClient");
export const CreateTopicCommand = unavailable("SNS CreateTopicCommand");
export const SubscribeCommand = unavailable("SNS SubscribeCommand");
export const PublishCommand = unavailable("SNS PublishCommand");
export const S3Client = unavailable("S3Client");
