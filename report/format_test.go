package report

import (
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/safetext"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1, "1"}, {89.6, "89.6"}, {0.896, "0.896"}, {-88.6, "-88.6"}, {3.17, "3.17"},
		{143, "143"}, {317.4, "317"}, {1030, "1030"}, {918000, "918,000"}, {-12345, "-12,345"}, {1234567, "1,234,567"},
	} {
		if got := num(tc.in); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TerminalSafe shows controls escaped and keeps a line on one line; the
// Markdown and HTML escapers are mdoc's and tested there.
func TestTerminalSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain-name.v2", "plain-name.v2"},
		{"<b>&</b>", "<b>&</b>"},
		{"@org/team", "@org/team"},
		{"a|b\nc", "a|b c"},
		{"tab\there\r", "tab here "},
		{"esc\x1b[31m", `esc\u001b[31m`},
		{"rtl\u202eoverride", `rtl\u202eoverride`},
		{"c1\u009b", `c1\u009b`},
	} {
		if got := TerminalSafe(tc.in); got != tc.want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := safetext.MermaidLabel(`a "b" ` + "```" + ` c@d`); got != "a _b_ ___ c_d" {
		t.Errorf("MermaidLabel = %q", got)
	}
}

// Every format is a pure function of its input: rendering twice gives the
// same bytes (map iteration order must never leak into the output).
func TestFormatsAreDeterministic(t *testing.T) {
	o := Options{
		Plots:    map[string][]string{"shop/HorizontalPodAutoscaler/checkout": {"a.svg"}, "web/HorizontalPodAutoscaler/frontend": {"b.svg"}},
		SVGPlots: map[string][][]byte{"shop/HorizontalPodAutoscaler/checkout": {[]byte(fixtureSVG)}, "web/HorizontalPodAutoscaler/frontend": {[]byte(fixtureSVG)}},
	}
	for name, f := range map[string]func(contract.Report, Options) ([]byte, error){
		"text": Text, "json": JSON, "markdown": Markdown, "html": HTML,
	} {
		first, err := f(specimenReport(), o)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			again, _ := f(specimenReport(), o)
			if string(again) != string(first) {
				t.Fatalf("%s output differs between two renders", name)
			}
		}
	}
}

func TestSizeKeyDeadBand(t *testing.T) {
	w := specimenCheckout()
	w.Size.DeadBand = true
	w.Size.Overloads[1].Rounds = nil
	w.Size.Overloads[1].TimeToCapacitySeconds = nil
	got := billKey(w)
	want := "dead band (never scales on saturation); 10x: never meets it (bound 3), capacity never, peak wait 2 min 23 s, 317 pods vs 100 needed"
	if got != want {
		t.Errorf("billKey = %q\nwant %q", got, want)
	}
}
