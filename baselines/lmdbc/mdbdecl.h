/* The part of the LMDB 0.9 C API that dbbench's helpers call, declared here from the documented
 * interface so that no LMDB header or library is needed at build time. The symbols resolve to the
 * LMDB that github.com/PowerDNS/lmdb-go compiles into the same binary (never a second copy).
 * Bind checks these constants against lmdb-go's, and the library version, at run time. */
#ifndef DBB_MDBDECL_H
#define DBB_MDBDECL_H

#include <stddef.h>

typedef struct MDB_env MDB_env;
typedef struct MDB_txn MDB_txn;
typedef struct MDB_cursor MDB_cursor;
typedef unsigned int MDB_dbi;

typedef struct MDB_val {
	size_t mv_size;
	void *mv_data;
} MDB_val;

/* MDB_cursor_op values, MDB_txn_begin and mdb_put flags, return codes. */
#define DBB_MDB_FIRST 0
#define DBB_MDB_NEXT 8
#define DBB_MDB_RDONLY 0x20000
#define DBB_MDB_APPEND 0x20000
#define DBB_MDB_KEYEXIST (-30799)
#define DBB_MDB_NOTFOUND (-30798)
#define DBB_MDB_MAP_FULL (-30792)
#define DBB_MDB_READERS_FULL (-30790)

char *mdb_version(int *major, int *minor, int *patch);
int mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn);
MDB_env *mdb_txn_env(MDB_txn *txn);
size_t mdb_txn_id(MDB_txn *txn);
int mdb_txn_commit(MDB_txn *txn);
void mdb_txn_abort(MDB_txn *txn);
void mdb_txn_reset(MDB_txn *txn);
int mdb_txn_renew(MDB_txn *txn);
int mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int mdb_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags);
int mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor);
void mdb_cursor_close(MDB_cursor *cursor);
MDB_txn *mdb_cursor_txn(MDB_cursor *cursor);
MDB_dbi mdb_cursor_dbi(MDB_cursor *cursor);
int mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, int op);

#endif
