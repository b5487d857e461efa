package mermaid

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestXYChart(t *testing.T) {
	got := XYChart{
		Title: `Replicas "after" a 3x step`, YTitle: "pods",
		Lines: []Series{
			{T: []int{-60, 0, 30}, V: Counts([]int32{2, 9, 4})},
			{T: []int{-60, 0}, V: []float64{1.5, 7.126}},
		},
	}.String()
	want := "```mermaid\n" +
		`%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#2f81f7, #e8590c, #2da44e"}}}}%%` + "\n" +
		"xychart-beta\n" +
		"    title \"Replicas _after_ a 3x step\"\n" +
		"    x-axis \"seconds after the step\" -60 --> 30\n" +
		"    y-axis \"pods\" 0 --> 10\n"
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "]\n```\n") {
		t.Fatalf("got\n%s\nwant a block starting\n%s", got, want)
	}
	ls := lineValues(t, got)
	if len(ls) != 2 || len(ls[0]) != 2*Buckets || len(ls[1]) != 2*Buckets {
		t.Fatalf("want two lines of %d points:\n%s", 2*Buckets, got)
	}
	// Step reading: 2 before the step, 9 from 0 s, 4 from 30 s (the last
	// interval); the second series holds 7.13 to the end of the axis.
	if ls[0][0] != 2 || ls[0][2*Buckets-1] != 4 || !contains(ls[0], 9) {
		t.Errorf("first line not read as a step function: %v", ls[0])
	}
	if ls[1][0] != 1.5 || ls[1][2*Buckets-1] != 7.13 {
		t.Errorf("second line: %v", ls[1])
	}
}

// A long axis is in minutes; a trough and a spike of one sample each, in
// one interval, both survive the envelope, in their order.
func TestXYChartEnvelope(t *testing.T) {
	s := Series{}
	for i := range 3600 {
		s.T = append(s.T, i*20) // 20 hours at 20 s
		s.V = append(s.V, 50)
	}
	s.V[1000], s.V[1001] = 1, 100 // one drop to 1 pod, then a spike
	s.V[3000] = 1                 // another drop, in another interval
	ch := XYChart{Title: "hunt", YTitle: "pods", Lines: []Series{s}}.String()
	if !strings.Contains(ch, `x-axis "minutes after the step" 0 --> 1199.67`) {
		t.Errorf("the axis is not in minutes:\n%.300s", ch)
	}
	if !strings.Contains(ch, `y-axis "pods" 0 --> 120`) {
		t.Errorf("the pod axis does not start at 0 with headroom:\n%.300s", ch)
	}
	l := lineValues(t, ch)[0]
	var drops []int
	spike := -1
	for i, v := range l {
		switch v {
		case 1:
			drops = append(drops, i)
		case 100:
			spike = i
		}
	}
	if len(drops) != 2 || spike < 0 || drops[0] > spike {
		t.Errorf("drops to 1 pod at %v and the spike at %d, want two drops, the first before the spike: %v", drops, spike, l)
	}
}

func TestXYChartUnusable(t *testing.T) {
	for name, c := range map[string]XYChart{
		"no lines":     {},
		"empty series": {Lines: []Series{{}}},
		"ragged":       {Lines: []Series{{T: []int{0, 1}, V: []float64{1}}}},
	} {
		if got := c.String(); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for x, want := range map[float64]float64{0: 1, 1: 1.2, 9: 10, 100: 120, 305: 400, 320: 400, 1000: 1200} {
		if got := niceCeil(x); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", x, got, want)
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

var lineRE = regexp.MustCompile(`(?m)^    line \[(.*)\]$`)

func lineValues(t *testing.T, ch string) [][]float64 {
	t.Helper()
	var out [][]float64
	for _, m := range lineRE.FindAllStringSubmatch(ch, -1) {
		var vs []float64
		for _, f := range strings.Split(m[1], ", ") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("%q: %v", f, err)
			}
			vs = append(vs, v)
		}
		out = append(out, vs)
	}
	return out
}

func contains(vs []float64, x float64) bool {
	for _, v := range vs {
		if v == x {
			return true
		}
	}
	return false
}
