package calibrate

import "fmt"

// LimitError is an answer over one of the bounds. It is the answer's
// fault, not the run's: Run reports what needed the answer as findings
// and measures the rest.
type LimitError struct {
	Query string // set by the caller, which knows it
	What  string // "exceeds 256 MiB, …"
}

func (e *LimitError) Error() string {
	if e.Query == "" {
		return "the Prometheus answer " + e.What
	}
	return fmt.Sprintf("the Prometheus answer to %q %s", e.Query, e.What)
}
