package render

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as a render worker for the tests
// that set Options.Isolation.Command to os.Args[0].
func TestMain(m *testing.M) {
	if IsWorker() {
		os.Exit(ServeWorker())
	}
	os.Exit(m.Run())
}
