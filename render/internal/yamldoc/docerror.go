package yamldoc

import "fmt"

// A DocError is a failure of one document, or of a whole file, at
// File:Line (the file alone when Line is not positive).
type DocError struct {
	File string
	Line int
	Err  error
}

func (e *DocError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *DocError) Unwrap() error { return e.Err }
