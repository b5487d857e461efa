package testutil

import "testing"

// SkipIfShort skips a test that takes seconds (a corpus, a process, a
// browser, a long simulation) under `go test -short`, the quick run while
// editing; .ci/run runs the full suite without -short, so nothing is left
// out of CI.
func SkipIfShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow: runs without -short, as in .ci/run")
	}
}
