#include "service/store/pg_statements.h"

namespace lather {

const std::vector<const char*>& PgSessionSettings() {
  static const std::vector<const char*> settings = {
      "SET synchronous_commit = on",
      "SET client_min_messages = warning",  // no NOTICE "already exists" on stderr
      // Each statement is planned once per connection, at its first run, and the plan kept: planning the
      // batch statement for every run (force_custom_plan, sessions 21-27) cost its backend ~0.19 ms a batch,
      // most of PostgreSQL's CPU per IncCounter. A plan made once must stay right as message_ids grows from
      // empty to millions of rows (a plan made while it was empty once scanned all of it for every batch
      // until autovacuum's ANALYZE): every statement below reaches message_ids through an index condition
      // (= ANY of an array, never a join the planner could turn into a scan), and enable_seqscan = off makes
      // the planner take that index even when the table is empty, where a scan would cost less.
      "SET plan_cache_mode = force_generic_plan",
      "SET enable_seqscan = off",
  };
  return settings;
}

const std::vector<PgStatement>& PgStatements() {
  static const std::vector<PgStatement> statements = {
      {"increment",
       "INSERT INTO counters (name, value) VALUES ($1, $2) "
       "ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value RETURNING value"},
      {"get", "SELECT value FROM counters WHERE name = $1"},
      // The claim-first transaction (an id taken before, or a retry): a batch's message ids are claimed, read
      // back and remembered with one statement each (arrays, unnest), not one per id.
      {"claim_all",
       "INSERT INTO message_ids (message_id, name, value, at) "
       "SELECT u.id, u.name, 0, $3 FROM unnest($1::text[], $2::text[]) AS u(id, name) "
       "ON CONFLICT (message_id) DO NOTHING RETURNING message_id"},
      {"remembered_all",
       "SELECT message_id, name, value, at FROM message_ids WHERE message_id = ANY($1::text[]) FOR UPDATE"},
      // The second condition repeats the join's as an index condition on message_ids' key.
      {"remember_all",
       "UPDATE message_ids AS m SET name = u.name, value = u.value, at = $4 "
       "FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, name, value) "
       "WHERE m.message_id = u.id AND m.message_id = ANY($1::text[])"},
      {"purge",
       "DELETE FROM message_ids WHERE message_id = ANY(ARRAY("
       "SELECT message_id FROM message_ids WHERE at <= $1 ORDER BY at LIMIT $2))"},
      // A whole batch whose ids are all new, in one statement and one commit (CountInOneStatement): each
      // counter's increments added ($1 names, $2 counts; in name order, the order every writer locks them in),
      // each id remembered with its value ($3 ids, $4 their counters, $5 how far below the counter's new value
      // the id's increment is), up to $8 ids older than $7 purged. An id taken already fails the statement
      // (unique_violation) and nothing of it is written: the claim-first transaction takes the batch then.
      {"count_all",
       "WITH counted AS (INSERT INTO counters (name, value) "
       "SELECT u.name, u.n FROM unnest($1::text[], $2::bigint[]) AS u(name, n) ORDER BY u.name "
       "ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value RETURNING name, value), "
       "remembered AS (INSERT INTO message_ids (message_id, name, value, at) "
       "SELECT u.id, u.name, c.value - u.below, $6 "
       "FROM unnest($3::text[], $4::text[], $5::bigint[]) AS u(id, name, below) JOIN counted AS c USING (name) "
       "RETURNING 1), "
       "purged AS (DELETE FROM message_ids WHERE message_id = ANY(ARRAY("
       "SELECT message_id FROM message_ids WHERE at <= $7 ORDER BY at LIMIT $8)) RETURNING 1) "
       "SELECT name, value, (SELECT count(*) FROM remembered), (SELECT count(*) FROM purged) FROM counted"},
      // The claim-first transaction locks its counters first, in name order, as count_all does: a batch of each
      // kind with the same new id cannot then wait for each other (one holding the counter, the other the id).
      {"lock_counters", "SELECT 1 FROM counters WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE"},
  };
  return statements;
}

}  // namespace lather
