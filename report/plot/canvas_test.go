package plot

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/report/plot/internal/sample"
)

// drawnLine is one line of text a figure drew: its box on the canvas and
// the Draw call that drew it (measuringText.drawn).
type drawnLine struct {
	call int
	line string
	box  vg.Rectangle
}

// drawText draws the figure as encode does and returns every line of text
// drawn, through the handler the drawing measures text with.
func drawText(t *testing.T, fig *figure) []drawnLine {
	t.Helper()
	var out []drawnLine
	for _, p := range fig.panels {
		txt, ok := p.plot.TextHandler.(*measuringText)
		if !ok {
			t.Fatalf("a panel draws text with %T", p.plot.TextHandler)
		}
		txt.drawn = func(call int, line string, b vg.Rectangle) {
			out = append(out, drawnLine{call, line, b})
		}
	}
	fig.fitLegend()
	c := vgimg.NewWith(vgimg.UseWH(fig.width, fig.height), vgimg.UseDPI(DPI))
	fig.draw(draw.New(c))
	return out
}

// outsideText lists every line of text drawn outside the canvas (titles
// centred over a data area narrower than themselves were drawn at a
// negative x and read "s to capacity…").
func outsideText(fig *figure, lines []drawnLine) []string {
	var out []string
	for _, l := range lines {
		const slack = 0.5 // points: antialiasing, not clipping
		b := l.box
		if b.Min.X < -slack || b.Min.Y < -slack || b.Max.X > fig.width+slack || b.Max.Y > fig.height+slack {
			out = append(out, fmt.Sprintf("%q at x %.1f..%.1f, y %.1f..%.1f on %.0f×%.0f", l.line, b.Min.X, b.Max.X, b.Min.Y, b.Max.Y, fig.width, fig.height))
		}
	}
	return out
}

// Two texts on one row (boxes sharing more than rowSlack of height) must
// be textGap apart; texts on rows that only touch (a legend's entries, an
// axis label under its tick labels, whose ascent-to-descent boxes are set
// at the line height) do not overlap.
const (
	textGap  = vg.Length(2)
	rowSlack = vg.Length(0.5)
)

// overlappingText lists every two lines of text, of different texts, that
// overlap or come closer than textGap on one row: round labels a few
// seconds apart read "roundro1nd2nd3". Blank lines (the space that
// reserves a log axis's label height) are no text.
func overlappingText(lines []drawnLine) []string {
	var out []string
	for i, a := range lines {
		if strings.TrimSpace(a.line) == "" {
			continue
		}
		for _, b := range lines[i+1:] {
			if b.call == a.call || strings.TrimSpace(b.line) == "" {
				continue
			}
			rows := min(a.box.Max.Y, b.box.Max.Y) - max(a.box.Min.Y, b.box.Min.Y)
			cols := min(a.box.Max.X, b.box.Max.X) - max(a.box.Min.X, b.box.Min.X)
			if rows > rowSlack && cols > -textGap {
				out = append(out, fmt.Sprintf("%q at x %.1f..%.1f, y %.1f..%.1f and %q at x %.1f..%.1f, y %.1f..%.1f",
					a.line, a.box.Min.X, a.box.Max.X, a.box.Min.Y, a.box.Max.Y, b.line, b.box.Min.X, b.box.Max.X, b.box.Min.Y, b.box.Max.Y))
			}
		}
	}
	return out
}

// plotsDir, when set, receives a PNG of every figure the text tests draw,
// to be looked at: go test ./report/plot -run Text -plots DIR.
var plotsDir = flag.String("plots", "", "write every figure the text tests draw to this directory as PNG")

// checkText fails when the figure draws text outside its canvas or two
// texts over each other, and writes it to plotsDir under name.
func checkText(t *testing.T, name string, fig *figure) {
	t.Helper()
	lines := drawText(t, fig)
	for _, o := range outsideText(fig, lines) {
		t.Errorf("%s: %s", name, o)
	}
	for _, o := range overlappingText(lines) {
		t.Errorf("%s: overlapping text: %s", name, o)
	}
	if *plotsDir == "" {
		return
	}
	data, err := fig.encode(FormatPNG)
	if err == nil {
		err = os.WriteFile(filepath.Join(*plotsDir, safe(name)+".png"), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// No figure draws text outside its canvas or two texts over each other,
// and no legend strip takes more than maxLegendShare of the width: every
// figure of the samples, of the example repository's autoscalers and of
// the corpus's (issue 30, point 3).
func TestTextInsideCanvas(t *testing.T) {
	ws := []contract.Workload{sample.Specimen(), sample.Hunting()}
	if !testing.Short() {
		shop := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
		ws = append(ws, buildWorkloads(t, shop, pipeline.Settings{Root: shop})...)
		corpus := filepath.Join(testutil.RepoRoot(t), "..", "shared", "corpus")
		entries, err := os.ReadDir(corpus)
		cases := 0
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			cases++
			dir := filepath.Join(corpus, e.Name())
			// Each case with its defaults, and as its README renders it:
			// release rel in demo, with capreport-values.yaml when the
			// case has one, which switches most autoscalers on.
			ws = append(ws, buildWorkloads(t, dir, pipeline.Settings{Root: dir})...)
			values := filepath.Join(dir, "capreport-values.yaml")
			if _, err := os.Stat(values); err == nil {
				ws = append(ws, buildWorkloads(t, dir, pipeline.Settings{Root: dir, ReleaseName: "rel", Namespace: "demo", Values: []string{values}})...)
			}
		}
		if err != nil || cases < 10 {
			t.Fatalf("%s: %d cases, %v", corpus, cases, err)
		}
		// Seven autoscalers come from the corpus with its defaults, seven
		// more with its values (four of them unpriced, so not drawn: no
		// CPU request, or a rate signal), three from the shop.
		if len(ws) < 19 {
			t.Fatalf("%d workloads from the samples, examples/shop and the corpus, want 19", len(ws))
		}
	}
	builds := map[string]func(contract.Workload) (*figure, error){KindSize: buildSize, KindRounds: buildRounds, KindTime: buildTime, KindPhi: buildPhi}
	for _, w := range ws {
		for kind, build := range builds {
			fig, err := build(w)
			if err != nil {
				continue // a figure the workload has no data for
			}
			checkText(t, w.ID+"-"+kind, fig)
			if share := float64(fig.legendStrip() / fig.width); share > maxLegendShare+1e-9 {
				t.Errorf("%s %s: the legend takes %.0f %% of the width", w.ID, kind, 100*share)
			}
		}
	}
}

// buildWorkloads prices the autoscalers of dir with settings s.
func buildWorkloads(t *testing.T, dir string, s pipeline.Settings) []contract.Workload {
	t.Helper()
	r, _, err := pipeline.Build(context.Background(), []string{dir}, s)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return r.Workloads
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
