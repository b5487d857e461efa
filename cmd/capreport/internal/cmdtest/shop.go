package cmdtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/rules"
)

// ShopPricer renders examples/shop once and returns a pricing of it, with
// the rounds sweep and the Φ samples or (noCurve) without them, for the
// tests that hold an output to reading neither where it does not show
// them.
func ShopPricer(t *testing.T) func(noCurve bool) contract.Report {
	t.Helper()
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		t.Fatal(err)
	}
	return func(noCurve bool) contract.Report {
		r, err := rules.Build(context.Background(), dir, rp.Rendered, rp.Inventory, rp.Config, rules.Options{NoRoundsCurve: noCurve, NoPhiCurve: noCurve})
		if err != nil {
			t.Fatal(err)
		}
		return *r
	}
}
