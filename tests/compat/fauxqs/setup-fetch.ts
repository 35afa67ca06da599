// vitest setup file: fauxqs serves its own inspection endpoints under /_fauxqs/;
// a test that fetches one is not applicable to lqsd.
import { NotApplicableError } from "./not-applicable.ts";

const realFetch = globalThis.fetch;
globalThis.fetch = ((input: any, init?: any) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
  if (typeof url === "string" && new URL(url).pathname.startsWith("/_fauxqs")) {
    throw new NotApplicableError(`HTTP ${new URL(url).pathname} (fauxqs inspection endpoint)`);
  }
  return realFetch(input, init);
}) as typeof fetch;
