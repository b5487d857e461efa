package plot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/report/plot/internal/sample"
)

// outsideText lists every line of text a figure draws outside its canvas
// (titles centred over a data area narrower than themselves were drawn at
// a negative x and read "s to capacity…").
func outsideText(t *testing.T, fig *figure) []string {
	t.Helper()
	var out []string
	for _, p := range fig.panels {
		txt, ok := p.plot.TextHandler.(*measuringText)
		if !ok {
			t.Fatalf("a panel draws text with %T", p.plot.TextHandler)
		}
		txt.drawn = func(line string, b vg.Rectangle) {
			const slack = 0.5 // points: antialiasing, not clipping
			if b.Min.X < -slack || b.Min.Y < -slack || b.Max.X > fig.width+slack || b.Max.Y > fig.height+slack {
				out = append(out, fmt.Sprintf("%q at x %.1f..%.1f, y %.1f..%.1f on %.0f×%.0f", line, b.Min.X, b.Max.X, b.Min.Y, b.Max.Y, fig.width, fig.height))
			}
		}
	}
	fig.fitLegend()
	c := vgimg.NewWith(vgimg.UseWH(fig.width, fig.height), vgimg.UseDPI(DPI))
	fig.draw(draw.New(c))
	return out
}

// No figure draws text outside its canvas, and no legend strip takes more
// than maxLegendShare of the width: every figure of the samples, of the
// example repository's autoscalers and of the corpus's (issue 30, point 3).
func TestTextInsideCanvas(t *testing.T) {
	ws := []contract.Workload{sample.Specimen(), sample.Hunting()}
	if !testing.Short() {
		// examples/shop, and every case of ../shared/corpus with its
		// defaults (not the README's values, which the cmd tests apply).
		dirs := []string{filepath.Join(testutil.RepoRoot(t), "examples", "shop")}
		entries, err := os.ReadDir(filepath.Join(testutil.RepoRoot(t), "..", "shared", "corpus"))
		var corpus []string
		for _, e := range entries {
			if e.IsDir() {
				corpus = append(corpus, filepath.Join(testutil.RepoRoot(t), "..", "shared", "corpus", e.Name()))
			}
		}
		if err != nil || len(corpus) < 10 {
			t.Fatalf("../shared/corpus: %d cases, %v", len(corpus), err)
		}
		for _, dir := range append(dirs, corpus...) {
			r, _, err := pipeline.Build(context.Background(), []string{dir}, pipeline.Settings{Root: dir})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			ws = append(ws, r.Workloads...)
		}
		// With their defaults the corpus charts switch most autoscalers
		// off: seven autoscalers come from it, three from the shop.
		if len(ws) < 12 {
			t.Fatalf("%d workloads from the samples, examples/shop and the corpus, want 12", len(ws))
		}
	}
	builds := map[string]func(contract.Workload) (*figure, error){KindSize: buildSize, KindRounds: buildRounds, KindTime: buildTime, KindPhi: buildPhi}
	for _, w := range ws {
		for kind, build := range builds {
			fig, err := build(w)
			if err != nil {
				continue // a figure the workload has no data for
			}
			for _, o := range outsideText(t, fig) {
				t.Errorf("%s %s: %s", w.ID, kind, o)
			}
			if share := float64(fig.legendStrip() / fig.width); share > maxLegendShare+1e-9 {
				t.Errorf("%s %s: the legend takes %.0f %% of the width", w.ID, kind, 100*share)
			}
		}
	}
}

// A time axis reads in the unit that fits: seconds for a short span,
// minutes for a longer one, hours and minutes past two hours.
func TestTimeAxisUnits(t *testing.T) {
	for _, tc := range []struct {
		lo, hi     float64
		name       string
		at, labels string
	}{
		{-60, 360, "s", "120", "120"},
		{-60, 900, "min", "120", "2"},
		{0, 9000, "h:mm", "7800", "2:10"},
		{-600, 9000, "h:mm", "-600", "-0:10"},
	} {
		u := timeUnitOf(tc.lo, tc.hi)
		v := 0.0
		fmt.Sscan(tc.at, &v)
		if u.name != tc.name || u.label(v) != tc.labels {
			t.Errorf("[%v, %v]: unit %s, %v labels %q; want %s, %q", tc.lo, tc.hi, u.name, v, u.label(v), tc.name, tc.labels)
		}
	}
}
