package mdoc

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/report/internal/mermaid"
)

// Manifest text as Markdown (Text) and as the HTML of a summary line
// (OpenDetails): inert, on one line, never a mention, reference or link.
func TestEscapers(t *testing.T) {
	for _, tc := range []struct {
		in, md, html string
	}{
		{"plain-name.v2", "plain-name.v2", "plain-name.v2"},
		{"<b>&</b>", "&lt;b&gt;&amp;&lt;/b&gt;", "&lt;b&gt;&amp;&lt;/b&gt;"},
		{"@org/team", "@\u200dorg/team", "@\u200dorg/team"},
		{"a|b\nc", `a\|b c`, "a|b c"},
		{`trailing\`, `trailing\\`, `trailing\`},
		{"[x](javascript:y)", `\[x\](javascript:y)`, "[x](javascript:y)"},
		{"`tick` *em* _u_ $m$ ~s~ #1 !", "\\`tick\\` \\*em\\* \\_u\\_ \\$m\\$ \\~s\\~ \\#\u200d1 \\!", "`tick` *em* _u_ $m$ ~s~ #\u200d1 !"},
		// GitHub's references and autolinks, broken by a joiner.
		{"org/repo#45 GH-7", "org/repo\\#\u200d45 GH-\u200d7", "org/repo#\u200d45 GH-\u200d7"},
		{"see https://evil.example/t.png", "see https:\u200d//evil.example/t.png", "see https:\u200d//evil.example/t.png"},
		{"go to WWW.evil.example", "go to WWW\u200d.evil.example", "go to WWW\u200d.evil.example"},
		{"esc\x1b[31m", "esc\ufffd\\[31m", "esc\ufffd[31m"},
		{"rtl\u202eoverride", "rtl\ufffdoverride", "rtl\ufffdoverride"},
		{`q"'`, "q&quot;'", "q&quot;&#39;"},
		{"</summary></details><script>", "&lt;/summary&gt;&lt;/details&gt;&lt;script&gt;", "&lt;/summary&gt;&lt;/details&gt;&lt;script&gt;"},
	} {
		if got := Text(tc.in); got != tc.md {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.md)
		}
		want := "<details><summary>❌ <b>" + tc.html + "</b>: " + tc.html + " · " + tc.html + "</summary>\n\n"
		if got := OpenDetails(false, "❌", tc.in, tc.in, tc.in); got != want {
			t.Errorf("OpenDetails of %q = %q, want %q", tc.in, got, want)
		}
	}
}

func TestCapped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"ééééé", 3, "éé…"},
		{"a|b|c|d", 4, `a\|b…`},
		// The cut comes first: an escape is never split, and what the cut
		// left is escaped whole.
		{"@@@@@", 3, "@\u200d@\u200d…"},
		{"<<<<", 2, "&lt;…"},
	} {
		if got := Capped(tc.in, tc.n); got != tc.want {
			t.Errorf("Capped(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestOpenDetails(t *testing.T) {
	long := strings.Repeat("n", MaxIDRunes+10)
	for _, tc := range []struct {
		open        bool
		name, notes string
		want        string
	}{
		{false, "a", "", "<details><summary>✅ <b>a</b>: </summary>\n\n"},
		{true, "a", "pass", "<details open><summary>✅ <b>a</b>: pass</summary>\n\n"},
		{false, long, "x", "<details><summary>✅ <b>" + strings.Repeat("n", MaxIDRunes-1) + "…</b>: x</summary>\n\n"},
	} {
		var notes []string
		if tc.notes != "" {
			notes = []string{tc.notes}
		}
		if got := OpenDetails(tc.open, "✅", tc.name, notes...); got != tc.want {
			t.Errorf("OpenDetails(%v, %q, %q) = %q, want %q", tc.open, tc.name, tc.notes, got, tc.want)
		}
	}
}

func TestChart(t *testing.T) {
	ch := mermaid.XYChart{Title: "t", YTitle: "pods", Lines: []mermaid.Series{{T: []int{0, 60}, V: []float64{1, 2}}}}
	got := Chart(ch, "Blue: replicas.")
	if !strings.HasPrefix(got, ch.String()+"\n") || !strings.HasSuffix(got, "\nBlue: replicas. "+mermaid.EnvelopeNote+"\n\n") {
		t.Errorf("chart or caption:\n%s", got)
	}
	ragged := mermaid.XYChart{Lines: []mermaid.Series{{T: []int{0, 1}, V: []float64{1}}}}
	if got := Chart(ragged, "caption"); got != "" {
		t.Errorf("a ragged series charted: %q", got)
	}
}

func TestImages(t *testing.T) {
	for _, tc := range []struct {
		name string
		ims  []Image
		want string
	}{
		{"none", nil, ""},
		{"escaped alt and link", []Image{{Alt: "Replicas [after] a step", URL: "https://github.com/o/r/raw/abc/a (1).png"}},
			"![Replicas \\[after\\] a step](https://github.com/o/r/raw/abc/a%20%281%29.png)\n\n"},
		{"only web links", []Image{{Alt: "js", URL: "javascript:alert(1)"}, {Alt: "data", URL: "data:image/png;base64,AA"},
			{Alt: "rel", URL: "a.png"}, {Alt: "bad", URL: "http://[::1"}, {Alt: "ok", URL: "http://e.example/x.png"}},
			"![ok](http://e.example/x.png)\n\n"},
		{"alt capped", []Image{{Alt: strings.Repeat("a", MaxIDRunes+1), URL: "https://e.example/x.png"}},
			"![" + strings.Repeat("a", MaxIDRunes-1) + "…](https://e.example/x.png)\n\n"},
	} {
		if got := Images(tc.ims); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
