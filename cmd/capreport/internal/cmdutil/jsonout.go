package cmdutil

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v indented, for every command's -o json.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
