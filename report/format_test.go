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

func TestEscapers(t *testing.T) {
	for _, tc := range []struct {
		in, md, html, term string
	}{
		{"plain-name.v2", "plain-name.v2", "plain-name.v2", "plain-name.v2"},
		{"<b>&</b>", "&lt;b&gt;&amp;&lt;/b&gt;", "&lt;b&gt;&amp;&lt;/b&gt;", "<b>&</b>"},
		{"@org/team", "@\u200dorg/team", "@\u200dorg/team", "@org/team"},
		{"a|b\nc", `a\|b c`, "a|b c", "a|b c"},
		{`trailing\`, `trailing\\`, `trailing\`, `trailing\`},
		{"[x](javascript:y)", `\[x\](javascript:y)`, "[x](javascript:y)", "[x](javascript:y)"},
		{"`tick` *em* _u_ $m$ ~s~ #1 !", "\\`tick\\` \\*em\\* \\_u\\_ \\$m\\$ \\~s\\~ \\#\u200d1 \\!", "`tick` *em* _u_ $m$ ~s~ #\u200d1 !", "`tick` *em* _u_ $m$ ~s~ #1 !"},
		// GitHub's references and autolinks, broken by a joiner.
		{"org/repo#45 GH-7", "org/repo\\#\u200d45 GH-\u200d7", "org/repo#\u200d45 GH-\u200d7", "org/repo#45 GH-7"},
		{"see https://evil.example/t.png", "see https:\u200d//evil.example/t.png", "see https:\u200d//evil.example/t.png", "see https://evil.example/t.png"},
		{"go to WWW.evil.example", "go to WWW\u200d.evil.example", "go to WWW\u200d.evil.example", "go to WWW.evil.example"},
		{"esc\x1b[31m", "esc\ufffd\\[31m", "esc\ufffd[31m", `esc\u001b[31m`},
		{"rtl\u202eoverride", "rtl\ufffdoverride", "rtl\ufffdoverride", `rtl\u202eoverride`},
		{`q"'`, "q&quot;'", "q&quot;&#39;", `q"'`},
	} {
		if got := mdText(tc.in); got != tc.md {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.md)
		}
		if got := htmlText(tc.in); got != tc.html {
			t.Errorf("htmlText(%q) = %q, want %q", tc.in, got, tc.html)
		}
		if got := termText(tc.in); got != tc.term {
			t.Errorf("termText(%q) = %q, want %q", tc.in, got, tc.term)
		}
	}
	if got := safetext.MermaidLabel(`a "b" ` + "```" + ` c@d`); got != "a _b_ ___ c_d" {
		t.Errorf("MermaidLabel = %q", got)
	}
}

func TestEllipsize(t *testing.T) {
	if got := ellipsize("ééééé", 3); got != "éé…" {
		t.Errorf("ellipsize = %q", got)
	}
	if got := ellipsize("abc", 3); got != "abc" {
		t.Errorf("ellipsize = %q", got)
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
