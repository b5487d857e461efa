package diff

import (
	"encoding/json"
	"fmt"
)

// JSON renders the Result, indented, with a trailing newline: the shape
// SchemaVersion names, with both sides of every changed autoscaler so a
// consumer needs neither input report.
func JSON(r Result) ([]byte, error) {
	if r.Changes == nil {
		// A consumer (jq, a dashboard) should meet [] where a list is promised.
		r.Changes = []Change{}
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal diff: %w", err)
	}
	return append(out, '\n'), nil
}
