// Package exitcode classifies errors into the process exit codes dbbench documents, so that a CI job
// can tell "slower" (an assertion failed) from "broken" (bad input, or a database that did not work).
package exitcode

import (
	"errors"
	"fmt"
	"strings"
)

// The documented exit codes.
const (
	OK     = 0 // every assertion held (or there were none)
	Failed = 1 // the run was fine but an assertion or the regression gate failed
	Usage  = 2 // bad command line, config or input file
	Infra  = 3 // a database, server or other infrastructure error; also an interrupted run
)

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

// OneLine folds a multi-line message (drivers and container libraries like them) into the single
// line every dbbench error is printed as.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
