package diff

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/capreport/capreport/report/internal/safetext"
)

// Text renders the comparison for a terminal: the headline, then one block
// per changed autoscaler with the change in words and every changed figure.
// Manifest text is made terminal-safe; no colour, so it reads the same in a
// CI log.
func Text(r Result) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s", headline(r.Counts))
	if r.Counts.Unchanged > 0 {
		fmt.Fprintf(&buf, " (%d unchanged)", r.Counts.Unchanged)
	}
	buf.WriteString("\n")
	for _, c := range r.Changes {
		fmt.Fprintf(&buf, "\n%s  %s  %s\n", strings.ToUpper(textVerdict(c)), safetext.Terminal(c.ID), safetext.Terminal(verdictCell(c)))
		fmt.Fprintf(&buf, "  %s\n", safetext.Terminal(c.Summary))
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		for _, f := range c.Figures {
			fmt.Fprintf(tw, "    %s\t%s\t→ %s\t%s\n", safetext.Terminal(f.Label), safetext.Terminal(f.BeforeText), safetext.Terminal(f.AfterText), f.Delta)
		}
		if err := tw.Flush(); err != nil {
			return nil, err
		}
	}
	return trimLineEnds(buf.Bytes()), nil
}

func textVerdict(c Change) string {
	if c.Status == StatusRemoved {
		return "gone"
	}
	return c.VerdictAfter
}

// trimLineEnds drops the padding tabwriter leaves before a newline when the
// last column is empty, so golden files and CI logs carry no trailing blanks.
func trimLineEnds(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}
