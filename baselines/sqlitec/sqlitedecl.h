/* The few SQLite C API declarations the baseline calls. Their definitions are the SQLite amalgamation
 * that github.com/mattn/go-sqlite3 compiles into the binary (imported for that reason), so no system
 * libsqlite3 is needed and no second SQLite is linked. Values as in sqlite3.h. */
#ifndef DBBSQ_SQLITEDECL_H
#define DBBSQ_SQLITEDECL_H

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

#define SQLITE_OK 0
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_CREATE 0x00000004
#define SQLITE_OPEN_NOMUTEX 0x00008000
#define SQLITE_STATIC ((void (*)(void *))0)

const char *sqlite3_libversion(void);
int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
int sqlite3_close_v2(sqlite3 *db);
const char *sqlite3_errmsg(sqlite3 *db);
const char *sqlite3_errstr(int rc);
int sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *arg,
                 char **errmsg);
int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int nbyte, sqlite3_stmt **stmt, const char **tail);
int sqlite3_bind_text(sqlite3_stmt *stmt, int i, const char *text, int n, void (*destructor)(void *));
int sqlite3_bind_int(sqlite3_stmt *stmt, int i, int v);
int sqlite3_bind_int64(sqlite3_stmt *stmt, int i, long long v);
int sqlite3_step(sqlite3_stmt *stmt);
int sqlite3_reset(sqlite3_stmt *stmt);
int sqlite3_finalize(sqlite3_stmt *stmt);
const unsigned char *sqlite3_column_text(sqlite3_stmt *stmt, int col);
int sqlite3_column_bytes(sqlite3_stmt *stmt, int col);
int sqlite3_column_int(sqlite3_stmt *stmt, int col);

#endif
