package report

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// update rewrites golden files (go test ./report/ -update).
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// checkGolden compares got with testdata/<TestName>/<name>, or writes it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", filepath.FromSlash(t.Name()), name), got, *update)
}
