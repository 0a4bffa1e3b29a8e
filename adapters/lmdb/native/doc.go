// Package native reaches the C objects behind lmdb-go's Env, Txn and Cursor and runs LMDB loops in C
// on them, so that Go can do many cursor steps or puts per cgo call (the "batched" variant of the
// LMDB adapter) and the C baseline can run its workloads on the very environment lmdb-go opened.
//
// lmdb-go v1.9.3 exports no accessor for its C handles, so Bind finds the unexported fields with
// reflect, then checks them against a live environment (transaction id, cursor DBI, owning env and
// txn, the LMDB version and the C constants) before handing out a Layout. The C code declares the
// few LMDB functions it calls (mdbdecl.h) and links against lmdb-go's vendored LMDB: the binary never
// contains a second LMDB.
//
// Without cgo the package is empty: its only users are cgo-only themselves.
package native

// MaxBatch bounds the pairs per cgo call of CursorBatch and PutBatch.
const MaxBatch = 1 << 16
