/* dbbench's C baseline for LMDB: the four common workloads written in C, timed inside C. */
#ifndef DBB_BASELINE_H
#define DBB_BASELINE_H

#include <stdint.h>
#include "mdbdecl.h"

/* A value too short to be [age][name]. Distinct from LMDB's codes (-30799..) and errno values (> 0). */
#define DBB_BAD_VALUE (-1)
/* A thread could not be started. */
#define DBB_NO_THREAD (-2)
/* Out of memory. */
#define DBB_NO_MEMORY (-3)

typedef struct dbb_tally {
	int64_t rows;
	uint64_t sum;
} dbb_tally;

typedef struct dbb_base_consts {
	int first, next, notfound, rdonly;
} dbb_base_consts;

void dbb_base_consts_get(dbb_base_consts *out);
uint64_t dbb_rowsum(const unsigned char *email, size_t en, const unsigned char *name, size_t nn, int age);
int dbb_scan(MDB_env *env, MDB_dbi dbi, int64_t n, dbb_tally *out, int64_t *ns);
int dbb_lookups(MDB_env *env, MDB_dbi dbi, const char *emails, const uint32_t *eoff, const int32_t *idx,
                int64_t n, int64_t *lat, dbb_tally *out);
int dbb_insert(MDB_env *env, MDB_dbi dbi, const char *emails, const uint32_t *eoff, const char *names,
               const uint32_t *noff, const uint8_t *ages, int64_t n, int64_t txn_size, int64_t *ns,
               int64_t *done);
int dbb_scan_concurrent(MDB_env *env, MDB_dbi dbi, int readers, int64_t rows, int64_t *lat,
                        dbb_tally *tallies, int64_t *wall);

#endif
