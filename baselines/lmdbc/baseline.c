#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../csupport/baseline.h"
#include "baseline.h"

void dbb_base_consts_get(dbb_base_consts *out) {
	out->first = DBB_MDB_FIRST;
	out->next = DBB_MDB_NEXT;
	out->notfound = DBB_MDB_NOTFOUND;
	out->rdonly = DBB_MDB_RDONLY;
}

/* The C twin of dataset.Person. */
typedef struct person {
	const unsigned char *email;
	size_t email_len;
	const unsigned char *name;
	size_t name_len;
	int age;
} person;

uint64_t dbb_rowsum(const unsigned char *email, size_t en, const unsigned char *name, size_t nn, int age) {
	return rowsum(email, en, name, nn, age);
}

/* Decodes a stored pair ([age][name] value) into p. */
static inline int decode(const MDB_val *k, const MDB_val *v, person *p) {
	const unsigned char *val = v->mv_data;
	if (v->mv_size == 0)
		return DBB_BAD_VALUE;
	p->email = k->mv_data;
	p->email_len = k->mv_size;
	p->age = val[0];
	p->name = val + 1;
	p->name_len = v->mv_size - 1;
	return 0;
}

/* Reads up to n pairs from the first key inside txn, decoding each into a person. */
static int scan_txn(MDB_txn *txn, MDB_dbi dbi, int64_t n, dbb_tally *t) {
	MDB_cursor *c;
	MDB_val k, v;
	person p;
	int op = DBB_MDB_FIRST;
	int rc = mdb_cursor_open(txn, dbi, &c);
	if (rc != 0)
		return rc;
	while (t->rows < n) {
		rc = mdb_cursor_get(c, &k, &v, op);
		if (rc != 0)
			break;
		op = DBB_MDB_NEXT;
		if ((rc = decode(&k, &v, &p)) != 0)
			break;
		t->sum += rowsum(p.email, p.email_len, p.name, p.name_len, p.age);
		t->rows++;
	}
	mdb_cursor_close(c);
	return rc == DBB_MDB_NOTFOUND ? 0 : rc;
}

/* One scan of n pairs in its own read transaction; *ns covers begin to abort. */
int dbb_scan(MDB_env *env, MDB_dbi dbi, int64_t n, dbb_tally *out, int64_t *ns) {
	MDB_txn *txn;
	int64_t t0 = now_ns();
	int rc = mdb_txn_begin(env, NULL, DBB_MDB_RDONLY, &txn);
	if (rc == 0) {
		rc = scan_txn(txn, dbi, n, out);
		mdb_txn_abort(txn);
	}
	*ns = now_ns() - t0;
	return rc;
}

/* Looks up the persons idx[0..n) (keys from the packed email buffer), each in its own read
 * transaction: one read txn renewed before and reset after every lookup, the same strategy as the Go
 * adapter's pooled transaction. lat[i] is lookup i's time including renew and reset. A missing key
 * adds nothing to the tally. */
int dbb_lookups(MDB_env *env, MDB_dbi dbi, const char *emails, const uint32_t *eoff, const int32_t *idx,
                int64_t n, int64_t *lat, dbb_tally *out) {
	MDB_txn *txn;
	MDB_val k, v;
	person p;
	int64_t i;
	int rc = mdb_txn_begin(env, NULL, DBB_MDB_RDONLY, &txn);
	if (rc != 0)
		return rc;
	mdb_txn_reset(txn);
	for (i = 0; i < n; i++) {
		int32_t j = idx[i];
		int64_t t0 = now_ns();
		k.mv_size = eoff[j + 1] - eoff[j];
		k.mv_data = (void *)(emails + eoff[j]);
		if ((rc = mdb_txn_renew(txn)) != 0)
			break;
		rc = mdb_get(txn, dbi, &k, &v);
		if (rc == 0 && (rc = decode(&k, &v, &p)) == 0) {
			out->sum += rowsum(p.email, p.email_len, p.name, p.name_len, p.age);
			out->rows++;
		}
		mdb_txn_reset(txn);
		lat[i] = now_ns() - t0;
		if (rc == DBB_MDB_NOTFOUND)
			rc = 0;
		if (rc != 0)
			break;
	}
	mdb_txn_abort(txn);
	return rc;
}

/* Inserts persons 0..n) from the packed buffers into an empty env: value [age][name] built in a
 * scratch buffer, mdb_put with no flags, a commit and a new write transaction every txn_size puts
 * (0: one transaction), a final commit. *ns covers the first begin to the last commit; *done counts
 * the puts that succeeded. The caller's thread must stay the same throughout (one C call does). */
int dbb_insert(MDB_env *env, MDB_dbi dbi, const char *emails, const uint32_t *eoff, const char *names,
               const uint32_t *noff, const uint8_t *ages, int64_t n, int64_t txn_size, int64_t *ns,
               int64_t *done) {
	MDB_txn *txn = NULL;
	MDB_val k, v;
	size_t longest = 0;
	unsigned char *val;
	int64_t i, t0, in_txn = 0;
	int rc;
	for (i = 0; i < n; i++)
		if (noff[i + 1] - noff[i] > longest)
			longest = noff[i + 1] - noff[i];
	if ((val = malloc(longest + 1)) == NULL)
		return DBB_NO_MEMORY;
	t0 = now_ns();
	rc = mdb_txn_begin(env, NULL, 0, &txn);
	for (i = 0; i < n && rc == 0; i++) {
		size_t nn = noff[i + 1] - noff[i];
		val[0] = ages[i];
		memcpy(val + 1, names + noff[i], nn);
		k.mv_size = eoff[i + 1] - eoff[i];
		k.mv_data = (void *)(emails + eoff[i]);
		v.mv_size = nn + 1;
		v.mv_data = val;
		if ((rc = mdb_put(txn, dbi, &k, &v, 0)) != 0)
			break;
		if (txn_size > 0 && ++in_txn == txn_size) {
			rc = mdb_txn_commit(txn);
			txn = NULL;
			in_txn = 0;
			if (rc == 0)
				rc = mdb_txn_begin(env, NULL, 0, &txn);
		}
	}
	*done = i;
	if (rc == 0) {
		rc = mdb_txn_commit(txn);
		txn = NULL;
	}
	*ns = now_ns() - t0;
	if (txn != NULL)
		mdb_txn_abort(txn);
	free(val);
	return rc;
}

_Static_assert(DBB_NO_THREAD == CS_NO_THREAD && DBB_NO_MEMORY == CS_NO_MEMORY, "run_readers' codes");

/* The concurrent workload: readers threads start together at the gate, each scanning rows pairs in its
 * own read transaction. */
typedef struct concurrent {
	MDB_env *env;
	MDB_dbi dbi;
	int64_t rows;
	dbb_tally *tallies;
} concurrent;

static int scan_reader(void *arg, int i) {
	concurrent *c = arg;
	dbb_tally t = {0, 0};
	MDB_txn *txn;
	int rc = mdb_txn_begin(c->env, NULL, DBB_MDB_RDONLY, &txn);
	if (rc == 0) {
		rc = scan_txn(txn, c->dbi, c->rows, &t);
		mdb_txn_abort(txn);
	}
	c->tallies[i] = t;
	return rc;
}

/* lat[i] is reader i's time from its begin to its abort; *wall as run_readers says. */
int dbb_scan_concurrent(MDB_env *env, MDB_dbi dbi, int readers, int64_t rows, int64_t *lat,
                        dbb_tally *tallies, int64_t *wall) {
	concurrent c = {.env = env, .dbi = dbi, .rows = rows, .tallies = tallies};
	return run_readers(readers, scan_reader, &c, lat, wall);
}
