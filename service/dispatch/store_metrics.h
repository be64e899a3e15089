// The store writer's figures in /metrics: transactions (committed, failed), the increments they carried (the
// group commit's batch size is their ratio), expired message ids purged, SQLite's log checkpoints (run off the
// writer's thread), and each transaction's time, in the
// Prometheus text format RenderMetrics writes. Reads GroupCommitter::totals() (one lock); any thread.
#pragma once

#include <string>

#include "service/store/group_commit.h"

namespace lather {

// Appends the lather_store_* metrics of `writer` to *out.
void AppendStoreMetrics(const GroupCommitter& writer, std::string* out);

}  // namespace lather
