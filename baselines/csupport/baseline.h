/* What every C baseline shares: the monotonic clock it times itself with, dataset.RowSum ported to C
 * (operation for operation; docs/protocol.md specifies it), and the concurrent workload's start gate
 * and threads. Included by the baselines' own .c files; all static inline, so each package compiles its
 * own copy. (Go's build cache does not track a header outside the package directory: after editing
 * this file, `go clean -cache` or touch the baselines' .c files.) */
#ifndef DBBENCH_CSUPPORT_BASELINE_H
#define DBBENCH_CSUPPORT_BASELINE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The codes run_readers returns of its own, besides a reader's; the baselines use the same values.
 * Distinct from 0 (success), LMDB's codes (-30799..), errno values and SQLite's codes (> 0). */
#define CS_NO_THREAD (-2)
#define CS_NO_MEMORY (-3)

static inline int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define ROW_MUL 0x9e3779b97f4a7c15ULL

static inline uint64_t le64(const unsigned char *s) {
	return (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 | (uint64_t)s[3] << 24 |
	       (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 | (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
}

static inline uint64_t fold(uint64_t h, const unsigned char *s, size_t n) {
	if (n < 8) {
		uint64_t v = 0;
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)s[i] << (8 * i);
		return (h ^ v) * ROW_MUL;
	}
	const unsigned char *tail = s + n - 8;
	for (; n > 8; s += 8, n -= 8)
		h = (h ^ le64(s)) * ROW_MUL;
	return (h ^ le64(tail)) * ROW_MUL;
}

static inline uint64_t rowsum(const unsigned char *email, size_t en, const unsigned char *name, size_t nn,
                              int age) {
	uint64_t h = (uint64_t)en << 40 ^ (uint64_t)nn << 32 ^ (uint64_t)(uint32_t)age;
	h = fold(h, email, en);
	h = fold(h, name, nn);
	h *= ROW_MUL;
	return h ^ h >> 29;
}

/* The start gate of the concurrent workload: readers wait at it, then are released together. It spins
 * (yielding the CPU) instead of sleeping on a condition variable, so that waking the readers costs about
 * what waking parked goroutines costs the Go side. */
typedef struct gate {
	atomic_int ready; /* readers waiting at the gate */
	atomic_int state; /* 0: wait, 1: go, -1: give up (a thread could not be started) */
} gate;

static inline void gate_init(gate *g) {
	atomic_init(&g->ready, 0);
	atomic_init(&g->state, 0);
}

/* gate_wait is a reader's arrival; it returns 0 to go, -1 to give up. */
static inline int gate_wait(gate *g) {
	int state;
	atomic_fetch_add_explicit(&g->ready, 1, memory_order_release);
	while ((state = atomic_load_explicit(&g->state, memory_order_acquire)) == 0)
		sched_yield();
	return state > 0 ? 0 : -1;
}

/* gate_open waits until readers have arrived, releases them and returns the release time. */
static inline int64_t gate_open(gate *g, int readers) {
	while (atomic_load_explicit(&g->ready, memory_order_acquire) < readers)
		sched_yield();
	int64_t t0 = now_ns();
	atomic_store_explicit(&g->state, 1, memory_order_release);
	return t0;
}

/* gate_abort releases the readers that did start, telling them to give up. */
static inline void gate_abort(gate *g) { atomic_store_explicit(&g->state, -1, memory_order_release); }

/* The concurrent workload's driver. scan(ctx, i) is reader i's timed work: one read transaction
 * scanning the persons asked for, the tally written where the baseline keeps it (at the end, from a
 * local: readers' tallies side by side would share cache lines); it returns 0 or the baseline's code. */
typedef int (*scan_fn)(void *ctx, int i);

typedef struct reader {
	scan_fn scan;
	void *ctx;
	int i;
	gate *g;
	int64_t start, end;
	int rc;
} reader;

static void *reader_main(void *arg) {
	reader *r = arg;
	if (gate_wait(r->g) < 0)
		return NULL;
	r->start = now_ns();
	r->rc = r->scan(r->ctx, r->i);
	r->end = now_ns();
	return NULL;
}

/* run_readers starts readers threads, releases them together at the gate and joins them. lat[i] is
 * reader i's time; *wall runs from opening the gate (all readers waiting at it) to the latest
 * reader's end, as the engine measures its Go readers. It returns 0, the first failed reader's code,
 * CS_NO_THREAD or CS_NO_MEMORY; lat and *wall are set only on 0. */
static inline int run_readers(int readers, scan_fn scan, void *ctx, int64_t *lat, int64_t *wall) {
	gate g;
	reader *rs = calloc((size_t)readers, sizeof *rs);
	pthread_t *th = calloc((size_t)readers, sizeof *th);
	int i, started = 0, rc = 0;
	int64_t t0 = 0, last = 0;
	if (rs == NULL || th == NULL) {
		free(rs);
		free(th);
		return CS_NO_MEMORY;
	}
	gate_init(&g);
	for (i = 0; i < readers; i++) {
		rs[i] = (reader){.scan = scan, .ctx = ctx, .i = i, .g = &g};
		if (pthread_create(&th[i], NULL, reader_main, &rs[i]) != 0) {
			rc = CS_NO_THREAD;
			break;
		}
		started++;
	}
	if (rc == 0) {
		t0 = gate_open(&g, readers);
	} else {
		gate_abort(&g);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (rc == 0) {
		for (i = 0; i < readers; i++) {
			if (rs[i].rc != 0 && rc == 0)
				rc = rs[i].rc;
			lat[i] = rs[i].end - rs[i].start;
			if (rs[i].end > last)
				last = rs[i].end;
		}
		*wall = last - t0;
	}
	free(rs);
	free(th);
	return rc;
}

#endif
