#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../csupport/baseline.h"
#include "baseline.h"

/* The reference statements (docs/protocol.md), as the sql adapter runs them. */
#define SCAN_SQL "SELECT email, name, age FROM persons ORDER BY email LIMIT ?"
#define INSERT_PERSONS_SQL "INSERT INTO persons (email, name, age) VALUES (?, ?, ?)"
#define INSERT_FRESH_SQL "INSERT INTO persons_insert (email, name, age) VALUES (?, ?, ?)"
/* The settings of the sql adapter's SQLite files. */
#define PRAGMAS "PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"

/* Each connection is used by one thread at a time, so it needs no mutex of its own (NOMUTEX). */
int dbbsq_open(const char *path, sqlite3 **db) {
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(*db, PRAGMAS, NULL, NULL, NULL);
	return rc;
}

/* The first column of the first row of sql, as text, into buf. */
int dbbsq_query_text(sqlite3 *db, const char *sql, char *buf, int len) {
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	buf[0] = 0;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		if (n >= len)
			n = len - 1;
		memcpy(buf, t, (size_t)n);
		buf[n] = 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Decodes every row of a prepared query into a person and folds it into the tally. */
static int tally_rows(sqlite3_stmt *st, dbbsq_tally *t) {
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *email = sqlite3_column_text(st, 0);
		size_t en = (size_t)sqlite3_column_bytes(st, 0);
		const unsigned char *name = sqlite3_column_text(st, 1);
		size_t nn = (size_t)sqlite3_column_bytes(st, 1);
		int age = sqlite3_column_int(st, 2);
		t->rows++;
		t->sum += rowsum(email, en, name, nn, age);
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* One read transaction: BEGIN, the scan query (prepared in it, as database/sql drivers do), COMMIT. */
static int scan_conn(sqlite3 *db, int64_t n, dbbsq_tally *t) {
	sqlite3_stmt *st;
	int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_prepare_v2(db, SCAN_SQL, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, n);
		rc = tally_rows(st, t);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_OK)
		return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int dbbsq_scan(sqlite3 *db, int64_t n, dbbsq_tally *out, int64_t *ns) {
	dbbsq_tally t = {0, 0};
	int64_t start = now_ns();
	int rc = scan_conn(db, n, &t);
	*ns = now_ns() - start;
	*out = t;
	return rc;
}

/* Each lookup runs the prepared statement in its own autocommit transaction (reset ends it). */
int dbbsq_lookups(sqlite3 *db, sqlite3_stmt *st, const char *emails, const uint32_t *eoff, const int32_t *idx,
                  int64_t n, int64_t *lat, dbbsq_tally *out) {
	dbbsq_tally t = {0, 0};
	int rc = SQLITE_OK;
	(void)db;
	for (int64_t i = 0; i < n && rc == SQLITE_OK; i++) {
		const char *email = emails + eoff[idx[i]];
		int len = (int)(eoff[idx[i] + 1] - eoff[idx[i]]);
		int64_t start = now_ns();
		sqlite3_bind_text(st, 1, email, len, SQLITE_STATIC);
		int step = sqlite3_step(st);
		if (step == SQLITE_ROW) {
			const unsigned char *e = sqlite3_column_text(st, 0);
			size_t en = (size_t)sqlite3_column_bytes(st, 0);
			const unsigned char *name = sqlite3_column_text(st, 1);
			size_t nn = (size_t)sqlite3_column_bytes(st, 1);
			int age = sqlite3_column_int(st, 2);
			t.rows++;
			t.sum += rowsum(e, en, name, nn, age);
		} else if (step != SQLITE_DONE) {
			rc = step;
		}
		sqlite3_reset(st);
		lat[i] = now_ns() - start;
	}
	*out = t;
	return rc;
}

/* n prepared inserts of persons in the given order (NULL: 0..n-1) into table sql, in the open transaction. */
static int insert_rows(sqlite3 *db, const char *sql, const char *emails, const uint32_t *eoff, const char *names,
                       const uint32_t *noff, const uint8_t *ages, const int32_t *order, int64_t n) {
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	for (int64_t k = 0; k < n && rc == SQLITE_OK; k++) {
		int64_t i = order ? order[k] : k;
		sqlite3_bind_text(st, 1, emails + eoff[i], (int)(eoff[i + 1] - eoff[i]), SQLITE_STATIC);
		sqlite3_bind_text(st, 2, names + noff[i], (int)(noff[i + 1] - noff[i]), SQLITE_STATIC);
		sqlite3_bind_int(st, 3, ages[i]);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? sqlite3_reset(st) : rc;
	}
	sqlite3_finalize(st);
	return rc;
}

static int in_transaction(sqlite3 *db, const char *sql, const char *emails, const uint32_t *eoff,
                          const char *names, const uint32_t *noff, const uint8_t *ages, const int32_t *order,
                          int64_t n) {
	int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = insert_rows(db, sql, emails, eoff, names, noff, ages, order, n);
	if (rc == SQLITE_OK)
		return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The load: one transaction of prepared inserts in email order. */
int dbbsq_load(sqlite3 *db, const char *emails, const uint32_t *eoff, const char *names, const uint32_t *noff,
               const uint8_t *ages, const int32_t *order, int64_t n) {
	return in_transaction(db, INSERT_PERSONS_SQL, emails, eoff, names, noff, ages, order, n);
}

/* The insert workload into the (fresh, empty) table persons_insert: BEGIN to COMMIT is timed. */
int dbbsq_insert(sqlite3 *db, const char *emails, const uint32_t *eoff, const char *names, const uint32_t *noff,
                 const uint8_t *ages, int64_t n, int64_t *ns) {
	int64_t start = now_ns();
	int rc = in_transaction(db, INSERT_FRESH_SQL, emails, eoff, names, noff, ages, NULL, n);
	*ns = now_ns() - start;
	return rc;
}

int dbbsq_read_all(sqlite3 *db, const char *sql, dbbsq_tally *out) {
	sqlite3_stmt *st;
	dbbsq_tally t = {0, 0};
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = tally_rows(st, &t);
	sqlite3_finalize(st);
	*out = t;
	return rc;
}

_Static_assert(DBBSQ_NO_THREAD == CS_NO_THREAD && DBBSQ_NO_MEMORY == CS_NO_MEMORY, "run_readers' codes");

/* The concurrent workload: one connection per reader, opened before the gate (as a pool's would be),
 * threads released together at the gate. */
typedef struct concurrent {
	sqlite3 **dbs;
	int64_t rows;
	dbbsq_tally *tallies;
} concurrent;

static int scan_reader(void *arg, int i) {
	concurrent *c = arg;
	dbbsq_tally t = {0, 0};
	int rc = scan_conn(c->dbs[i], c->rows, &t);
	c->tallies[i] = t;
	return rc;
}

int dbbsq_scan_concurrent(const char *path, int readers, int64_t rows, int64_t *lat, dbbsq_tally *tallies,
                          int64_t *wall) {
	sqlite3 **dbs = calloc((size_t)readers, sizeof *dbs);
	int i, opened = 0, rc = SQLITE_OK;
	if (dbs == NULL)
		return DBBSQ_NO_MEMORY;
	for (i = 0; i < readers && rc == SQLITE_OK; i++) {
		rc = dbbsq_open(path, &dbs[i]);
		opened++; /* a failed open still leaves a handle to close */
	}
	if (rc == SQLITE_OK) {
		concurrent c = {.dbs = dbs, .rows = rows, .tallies = tallies};
		rc = run_readers(readers, scan_reader, &c, lat, wall);
	}
	for (i = 0; i < opened; i++)
		sqlite3_close_v2(dbs[i]);
	free(dbs);
	return rc;
}
