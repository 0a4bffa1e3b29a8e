// Package postgres is dbbench's PostgreSQL plumbing: it starts a private, throwaway PostgreSQL server
// for a dbbench run or a test suite and removes it afterwards, and it creates the one thing dbbench
// makes on any server, a schema of its own per target (schema.go).
//
// # Local mode
//
// Start looks for initdb and postgres side by side: in Options.BinDir when set, else next to the
// initdb on PATH (symlinks resolved), else in /usr/lib/postgresql/VERSION/bin, highest version first.
// It creates a private directory (dbbench-pg-XXXX in Options.TempDir, default os.TempDir()) holding
// the cluster, a unix socket directory and the server log, and runs
//
//	initdb -A trust -U postgres -E UTF8 --locale=C --no-sync
//	postgres -c listen_addresses=127.0.0.1 -c port=FREE -c unix_socket_directories=DIR/sock \
//	         -c fsync=off -c synchronous_commit=off -c full_page_writes=off [Options.Settings]
//
// The data is thrown away, so durability is off. The port is probed free on 127.0.0.1 and start-up
// is retried on another port if someone takes it first. Start returns once a pgx connection succeeds
// and reads server_version (servers older than MinVersionNum are refused).
//
// PostgreSQL refuses to run as root. As root (sessions and CI), the directory is handed to the
// postgres system user and initdb and postgres run as that user through SysProcAttr.Credential;
// otherwise they run as the caller.
//
// # Lifetime
//
// postgres is a direct child in its own process group (a terminal's Ctrl-C reaches only dbbench,
// which stops the server in order) with a parent-death signal: if dbbench dies in any way, including
// SIGKILL, the kernel sends the postmaster SIGQUIT, PostgreSQL's immediate shutdown, which ends every
// backend and releases shared memory. The child is forked from a goroutine locked to its OS thread
// for the child's whole life, because Linux ties the parent-death signal to the forking thread.
//
// Stop sends SIGINT (fast shutdown), kills the process group after 15 s, and removes the directory.
// It is idempotent and may be called from any goroutine, including a Ctrl-C path. The directory of a
// dbbench that died without Stop stays behind; each directory holds an flock taken by its owner, and
// the next Start in the same parent removes directories whose lock nobody holds.
//
// Done and Err tell a caller that the server died on its own (killed, crashed); Stop then reports it.
//
// # Container mode
//
// Without local binaries, Start runs the postgres:15 image through testcontainers-go when a Docker
// engine answers (DOCKER_HOST, else the usual socket paths, checked in a few seconds). Testcontainers'
// reaper removes the container if dbbench dies. With neither, Start returns an error wrapping
// exitcode.ErrUnavailable (the same value as adapters.ErrUnavailable), so an optional target is
// skipped with the reason. Options.Mode forces one mode.
//
// Lazy starts a server on first use and hands the same one to every later caller (a run's targets,
// a test binary's tests).
//
// # Schemas
//
// CreateSchema makes a schema named PREFIX<random> and marks it with its owner (pid and host,
// internal/cleanup), so that a later run's SweepSchemas can drop the schemas of runs that died
// (SIGKILL, a crash), and only those. OpenSchema is what a target uses (the SQL and Triplex adapters,
// an exec target's client): it connects to a DSN, sweeps, makes the target's schema (or checks an
// existing one the user names), and returns it with the connection settings that work in it (its
// search path); Schema.Drop removes it, and only a schema it made.
//
// Tests use the subpackage pgtest: one server per test binary, failing (never skipping) when
// PostgreSQL cannot be started unless DBBENCH_SKIP_POSTGRES=1.
package postgres
