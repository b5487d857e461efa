package main

import (
	"errors"
	"fmt"
)

// Exit codes, decided in one place (exitCode).
const (
	exitOK    = 0 // nothing failed
	exitFail  = 1 // a check failed at or above --fail-on
	exitError = 2 // usage or tool error
)

// usageError is bad input on the command line: printed as one line, exit 2.
// err keeps the cause when there is one (flagErrorf with %w).
type usageError struct {
	msg string
	err error
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return e.err }

// flagErrorf names the flag and the reason; a %w verb keeps the cause.
func flagErrorf(flag, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &usageError{msg: fmt.Sprintf("--%s: %s", flag, err), err: errors.Unwrap(err)}
}

// checksFailedError means the report was produced and a check failed.
type checksFailedError struct{ failed int }

func (e *checksFailedError) Error() string {
	return fmt.Sprintf("%d check(s) failed", e.failed)
}

// sourcesFailedError means the listing was produced and some sources
// failed to render: what they hold is missing from it.
type sourcesFailedError struct{ failed int }

func (e *sourcesFailedError) Error() string {
	return fmt.Sprintf("%d source(s) failed to render; what they hold is missing (see Findings)", e.failed)
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var cf *checksFailedError
	var sf *sourcesFailedError
	if errors.As(err, &cf) || errors.As(err, &sf) {
		return exitFail
	}
	return exitError
}
