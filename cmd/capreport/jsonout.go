package main

import (
	"encoding/json"
	"io"
)

// writeJSON writes v indented, for every command's -o json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
