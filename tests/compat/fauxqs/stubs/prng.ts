// Replaces fauxqs's src/common/prng.js (its seeded ordering helper).
import { NotApplicableError } from "../not-applicable.ts";

export function mulberry32(_seed: number): () => number {
  throw new NotApplicableError("fauxqs's mulberry32 PRNG (fauxqs internals)");
}
