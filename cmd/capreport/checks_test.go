package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// The README's table of checks is `capreport checks -o markdown`, byte for
// byte: a check added to, renamed in or removed from the registry fails
// here until the README is regenerated.
func TestREADMEChecksTable(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"checks", "-o", "markdown"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- capreport checks -o markdown", "<!-- end of capreport checks -->"
	_, rest, ok := strings.Cut(string(readme), begin)
	if !ok {
		t.Fatalf("README.md has no %q marker", begin)
	}
	_, rest, _ = strings.Cut(rest, "-->\n")
	table, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("README.md has no %q marker", end)
	}
	if table != out.String() {
		t.Errorf("README.md's checks table differs from capreport checks -o markdown; paste this between the markers:\n%s", out.String())
	}
	if rows := strings.Count(table, "\n") - 2; rows != len(check.All()) {
		t.Errorf("%d rows for %d checks", rows, len(check.All()))
	}
}
