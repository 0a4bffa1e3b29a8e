// Package exitcode classifies errors into the process exit codes dbbench documents, so that a CI job
// can tell "slower" (an assertion failed) from "broken" (bad input, or a database that did not work).
package exitcode

import (
	"errors"
	"fmt"
	"strings"
)

// The documented exit codes, assigned together (README, "Exit codes": the one table). When several apply, the
// first in Precedence wins: a refused input over a broken run, a broken run over a decided failure,
// a decided failure over an undecided verdict.
const (
	OK     = 0 // every verdict holds (or there were none)
	Failed = 1 // the run was fine but an assertion or the regression gate failed: the evidence says so
	Usage  = 2 // bad command line, config or input file
	Infra  = 3 // a database, server or other infrastructure error; also an interrupted run
	// Inconclusive: a verdict the evidence could not decide within its budget (run, compare, gate,
	// merge); nothing failed. A CI job may treat it as "not known", never as a pass.
	Inconclusive = 4
	// GeneratorSaturated: the load generator could not keep its schedule (open-loop runs), so the
	// figures it measured are not the target's.
	GeneratorSaturated = 5
	// MissingShards: a merge of sharded runs lacks a shard or holds a partial one.
	MissingShards = 6
)

// Precedence orders the codes from strongest to weakest, for a command that has several outcomes.
var Precedence = []int{Usage, Infra, MissingShards, GeneratorSaturated, Failed, Inconclusive, OK}

// Strongest returns the code of codes that comes first in Precedence (OK for none).
func Strongest(codes ...int) int {
	for _, c := range Precedence {
		for _, got := range codes {
			if got == c {
				return c
			}
		}
	}
	return OK
}

// Error carries an exit code with the error that caused it.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef returns a usage/config error (exit 2).
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Infraf returns an infrastructure error (exit 3).
func Infraf(format string, args ...any) error {
	return &Error{Code: Infra, Err: fmt.Errorf(format, args...)}
}

// AsUsage marks err as a usage/config error unless it already carries a code.
func AsUsage(err error) error { return with(Usage, err) }

// AsInfra marks err as an infrastructure error unless it already carries a code.
func AsInfra(err error) error { return with(Infra, err) }

func with(code int, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// Of returns the exit code for err: 0 for nil, the carried code if any, else Infra: an unclassified
// error comes from a database or the system far more often than from the user.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Infra
}

// ErrUnavailable marks an error caused by infrastructure this machine does not have (no Docker, no
// PostgreSQL binaries): an optional target that meets it is skipped with the reason. It lives here, in
// the ground layer, so that the adapters (adapters.ErrUnavailable is this value) and the packages
// below them (internal/postgres) say it with one value.
var ErrUnavailable = errors.New("unavailable on this machine")

// Unavailable returns an error wrapping ErrUnavailable with a reason a user can act on.
func Unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// OneLine folds a multi-line message (drivers and container libraries like them) into the single
// line every dbbench error is printed as.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
