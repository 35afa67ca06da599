// lqs::Options presets (see lqs/options.h).

#include "lqs/options.h"

namespace lqs {

Options Options::SmallDevice() {
  Options o;
  o.block_cache_bytes = 2 << 20;
  o.write_buffer_bytes = 1 << 20;
  o.max_write_buffers = 2;
  o.memtable_budget_bytes = 6 << 20;
  o.max_background_jobs = 1;
  return o;
}

}  // namespace lqs
