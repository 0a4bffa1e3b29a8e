/* dbbench's C baseline for SQLite: the four common workloads with the reference statements of
 * docs/protocol.md, written in C and timed inside C. */
#ifndef DBBSQ_BASELINE_H
#define DBBSQ_BASELINE_H

#include <stdint.h>
#include "sqlitedecl.h"

/* A thread could not be started, or memory ran out (distinct from SQLite's codes, which are >= 0). */
#define DBBSQ_NO_THREAD (-2)
#define DBBSQ_NO_MEMORY (-3)

typedef struct dbbsq_tally {
	int64_t rows;
	uint64_t sum;
} dbbsq_tally;

int dbbsq_open(const char *path, sqlite3 **db);
int dbbsq_query_text(sqlite3 *db, const char *sql, char *buf, int len);
int dbbsq_load(sqlite3 *db, const char *emails, const uint32_t *eoff, const char *names, const uint32_t *noff,
               const uint8_t *ages, const int32_t *order, int64_t n);
int dbbsq_scan(sqlite3 *db, int64_t n, dbbsq_tally *out, int64_t *ns);
int dbbsq_lookups(sqlite3 *db, sqlite3_stmt *stmt, const char *emails, const uint32_t *eoff, const int32_t *idx,
                  int64_t n, int64_t *lat, dbbsq_tally *out);
int dbbsq_insert(sqlite3 *db, const char *emails, const uint32_t *eoff, const char *names, const uint32_t *noff,
                 const uint8_t *ages, int64_t n, int64_t *ns);
int dbbsq_read_all(sqlite3 *db, const char *sql, dbbsq_tally *out);
int dbbsq_scan_concurrent(const char *path, int readers, int64_t rows, int64_t *lat, dbbsq_tally *tallies,
                          int64_t *wall);

#endif
