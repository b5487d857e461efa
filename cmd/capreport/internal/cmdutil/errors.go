package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes, decided in one place (ExitCode).
const (
	ExitOK    = 0 // nothing failed
	ExitFail  = 1 // a check failed at or above --fail-on
	ExitError = 2 // usage or tool error
)

// UsageError is bad input on the command line: printed as one line, exit 2.
// err keeps the cause when there is one (FlagErrorf with %w).
type UsageError struct {
	Msg string
	Err error
}

func (e *UsageError) Error() string { return e.Msg }
func (e *UsageError) Unwrap() error { return e.Err }

// FlagErrorf names the flag and the reason; a %w verb keeps the cause.
func FlagErrorf(flag, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &UsageError{Msg: fmt.Sprintf("--%s: %s", flag, err), Err: errors.Unwrap(err)}
}

// ChecksFailedError means the report was produced and a check failed.
type ChecksFailedError struct{ Failed int }

func (e *ChecksFailedError) Error() string {
	return fmt.Sprintf("%d check(s) failed", e.Failed)
}

// SourcesFailedError means the listing was produced and some sources
// failed to render: what they hold is missing from it.
type SourcesFailedError struct{ Failed int }

func (e *SourcesFailedError) Error() string {
	return fmt.Sprintf("%d source(s) failed to render; what they hold is missing (see Findings)", e.Failed)
}

// ExitCode maps an error returned by a command to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var cf *ChecksFailedError
	var sf *SourcesFailedError
	if errors.As(err, &cf) || errors.As(err, &sf) {
		return ExitFail
	}
	return ExitError
}
