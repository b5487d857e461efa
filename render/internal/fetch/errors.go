// Package fetch downloads what a repository points at (Helm chart
// archives from chart repositories and OCI registries) under limits, into
// a content-addressed cache, and unpacks archives in memory with path
// checks. It never runs a helm binary: it uses the Helm SDK's repo index,
// getter and registry client, with its own HTTP transport that enforces
// the limits.
package fetch

import (
	"errors"
	"fmt"
)

// Kind says why a fetch failed; the renderer turns each into a check ID.
type Kind int

const (
	// Failed: the server was unreachable, answered an error, or has no
	// such chart or version.
	Failed Kind = iota
	// Limit: a size, file-count, dependency-count or time limit was hit.
	Limit
	// Unsafe: a scheme other than http(s)/oci, a redirect to another
	// scheme, or an archive entry with "..", an absolute path or a link.
	Unsafe
	// Digest: a download whose digest differs from the one its index or
	// lock names.
	Digest
)

// Error is a failed fetch of one reference.
type Error struct {
	Kind Kind
	Ref  string // what was fetched, for messages
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("fetching %s: %v", e.Ref, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of a fetch error, ok false for other errors.
func KindOf(err error) (Kind, bool) {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind, true
	}
	var le *limitError
	if errors.As(err, &le) {
		return Limit, true
	}
	var ue *unsafeError
	if errors.As(err, &ue) {
		return Unsafe, true
	}
	return 0, false
}

// limitError is a limit hit below the level that knows the reference; the
// transport returns it from deep inside the Helm SDK, which wraps it.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// unsafeError is a refused scheme, redirect or archive entry.
type unsafeError struct{ msg string }

func (e *unsafeError) Error() string { return e.msg }

// wrap classifies err for ref: a limit or refusal found anywhere in the
// chain keeps its kind, anything else is Failed.
func wrap(ref string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	k, ok := KindOf(err)
	if !ok {
		k = Failed
	}
	return &Error{Kind: k, Ref: ref, Err: err}
}
