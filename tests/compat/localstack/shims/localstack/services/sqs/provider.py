# the SQS limit for MaxNumberOfMessages in one ReceiveMessage
MAX_NUMBER_OF_MESSAGES = 10
