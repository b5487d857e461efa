package explain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/render"
	"github.com/capreport/capreport/rules"
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
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		t.Fatal(err)
	}
	price := func(noCurve bool) contract.Report {
		r, err := rules.Build(context.Background(), dir, rp.Rendered, rp.Inventory, rp.Config, rules.Options{NoRoundsCurve: noCurve, NoPhiCurve: noCurve})
		if err != nil {
			t.Fatal(err)
		}
		return *r
	}
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
