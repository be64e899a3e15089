#include "service/dispatch/store_metrics.h"

#include "service/admin/metrics.h"

namespace lather {

void AppendStoreMetrics(const GroupCommitter& writer, std::string* out) {
  const GroupCommitter::Totals t = writer.totals();
  AppendMetricHeader(out, "lather_store_transactions_total", "counter",
                     "The store writer's transactions (group commits of IncCounter increments), by outcome; a failed "
                     "one acknowledged none of its increments.");
  out->append("lather_store_transactions_total{outcome=\"committed\"} ").append(std::to_string(t.committed));
  out->append("\nlather_store_transactions_total{outcome=\"failed\"} ").append(std::to_string(t.failed)).append("\n");
  AppendMetricHeader(out, "lather_store_increments_total", "counter",
                     "Increments in committed transactions, repeats of a remembered message id included (looked up, "
                     "not counted again). Over lather_store_transactions_total{outcome=\"committed\"}: the batch "
                     "size.");
  out->append("lather_store_increments_total ").append(std::to_string(t.increments)).append("\n");
  AppendMetricHeader(out, "lather_store_purged_message_ids_total", "counter",
                     "Message ids deleted after --idempotency-window, a bounded number per transaction.");
  out->append("lather_store_purged_message_ids_total ").append(std::to_string(t.purged)).append("\n");
  AppendMetricHeader(out, "lather_store_checkpoints_total", "counter",
                     "SQLite: the write-ahead log copied into the database file, by mode: passive (the store's own "
                     "thread, beside the commits), restart (that thread, holding new commits for the last frames when "
                     "the log kept growing), inline (a commit that found the log at its limit, as SQLite's own "
                     "autocheckpoint does).");
  out->append("lather_store_checkpoints_total{mode=\"passive\"} ")
      .append(std::to_string(t.checkpoints - t.checkpoint_restarts));
  out->append("\nlather_store_checkpoints_total{mode=\"restart\"} ")
      .append(std::to_string(t.checkpoint_restarts));
  out->append("\nlather_store_checkpoints_total{mode=\"inline\"} ")
      .append(std::to_string(t.inline_checkpoints))
      .append("\n");
  AppendHistogram(out, "lather_store_transaction_seconds",
                  "One writer transaction, from BEGIN to the return of COMMIT (its fsync included).",
                  GroupCommitter::kTransactionBuckets.data(), GroupCommitter::kTransactionBuckets.size(),
                  t.transaction_buckets.data(), static_cast<double>(t.transaction_nanos) / 1e9);
}

}  // namespace lather
