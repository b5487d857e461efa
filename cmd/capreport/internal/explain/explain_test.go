package explain

import (
	"bytes"
	"os"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/render"
)

// TestMain lets the test binary serve as capreport's render worker: the
// pipeline renders each source in a process it starts from
// os.Executable(), which is this binary.
func TestMain(m *testing.M) {
	if render.IsWorker() {
		os.Exit(render.ServeWorker())
	}
	os.Exit(m.Run())
}

// explain's text bill reads neither the rounds sweep nor the Φ samples,
// which explain does not compute (TestRoundsCurveOnlyWhereShown holds the
// report's formats and diff to the same): the bill of a report priced
// without them is the bill of one priced with them.
func TestTextBillReadsNoRoundsCurve(t *testing.T) {
	price := cmdtest.ShopPricer(t)
	with, without := price(false), price(true)
	for i := range with.Workloads {
		var a, b bytes.Buffer
		printBill(&a, with.Workloads[i], "")
		printBill(&b, without.Workloads[i], "")
		if a.String() != b.String() {
			t.Errorf("explain %s: the text bill reads the rounds sweep", with.Workloads[i].ID)
		}
	}
}
