package mermaid

import (
	"strings"
	"testing"
)

func TestXYChart(t *testing.T) {
	got := XYChart{
		Title: `Replicas "after" a 3x step`, XTitle: "seconds after the step", X: []int{-60, 0, 30}, YTitle: "pods",
		Lines: []Line{{Values: Counts([]int32{2, 9, 4}), Peak: true}, {Values: []float64{1.5, 7.126, 7.126}}},
	}.String()
	want := "```mermaid\nxychart-beta\n" +
		"    title \"Replicas _after_ a 3x step\"\n" +
		"    x-axis \"seconds after the step\" [\"-60\", \"0\", \"30\"]\n" +
		"    y-axis \"pods\"\n" +
		"    line [2, 9, 4]\n" +
		"    line [1.5, 7.13, 7.13]\n" +
		"```\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Past MaxPoints samples, a point is its interval's peak (or first value)
// and is labelled by its first sample.
func TestXYChartDownsamples(t *testing.T) {
	n := 10 * MaxPoints
	c := XYChart{X: make([]int, n), Lines: []Line{{Values: make([]float64, n), Peak: true}, {Values: make([]float64, n)}}}
	for i := range n {
		c.X[i] = i
		c.Lines[0].Values[i] = float64(i % 10)
		c.Lines[1].Values[i] = float64(i % 10)
	}
	ch := c.String()
	want := map[string]string{
		"    x-axis":      ` "" ["0", "10", "20", `,
		"    line [9, 9,": "",
		"    line [0, 0,": "",
	}
	for prefix, rest := range want {
		if !strings.Contains(ch, prefix+rest) {
			t.Errorf("no %q in\n%s", prefix+rest, ch)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(ch), "\n") {
		if i := strings.Index(l, "["); i >= 0 {
			if got := strings.Count(l[i:], ",") + 1; got != MaxPoints {
				t.Errorf("%d points: %s", got, l)
			}
		}
	}
}

func TestXYChartUnusable(t *testing.T) {
	for name, c := range map[string]XYChart{
		"no samples": {},
		"ragged":     {X: []int{0, 1}, Lines: []Line{{Values: []float64{1}}}},
	} {
		if got := c.String(); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

func TestPlainNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 35: "35", 1e9: "1000000000", 0.125: "0.13", -2.5: "-2.5"} {
		if got := plainNum(x); got != want {
			t.Errorf("plainNum(%v) = %q, want %q", x, got, want)
		}
	}
}
