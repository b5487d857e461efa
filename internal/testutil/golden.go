package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with the golden file at path, or writes it when
// update is set (each test package declares its own -update flag). Golden
// files are read by people in review, so a mismatch names the first
// differing line rather than printing two blobs.
func Golden(tb testing.TB, path string, got []byte, update bool) {
	tb.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	first := 0
	for first < min(len(gl), len(wl)) && gl[first] == wl[first] {
		first++
	}
	// The whole line diff (-want +got), so a reviewer sees every change,
	// not only the first.
	tb.Fatalf("%s differs from line %d (run with -update if the change is intended); -want +got:\n%s",
		path, first+1, cmp.Diff(wl, gl))
}
