package diff

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/report/internal/mdoc"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// checkGolden compares got with testdata/<TestName>/<name>, or writes it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", filepath.FromSlash(t.Name()), name), got, *update)
}

// pullRequest is the acceptance scenario: the HPA's target went 50 → 80 %,
// the consumer's window 300 → 60 s, a third autoscaler did not change, and
// one was added.
func pullRequest() Result {
	added := timeWorkload()
	added.ID, added.Autoscaler.Name, added.Target.Name = "shop/ScaledObject/refunds", "refunds", "refunds"
	return Compare(
		reportOf(sizeWorkload(), timeWorkload(), steadyWorkload()),
		reportOf(sizeAt80(), timeShortWindow(), steadyWorkload(), added),
	)
}

// changedThenFailing: one HPA newly fails at its cap (its rounds did not
// move), the consumer got worse (pass → warn), and the web HPA got better
// (fail → pass).
func changedThenFailing() Result {
	return Compare(
		reportOf(apiWorkload(), sizeAt80(), timeWorkload()),
		reportOf(apiCapped(), sizeWorkload(), timeShortWindow()),
	)
}

func TestMarkdown(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Result
		o    Options
	}{
		{"pull-request", pullRequest(), Options{}},
		{"nothing-changed", Compare(reportOf(sizeWorkload()), reportOf(sizeWorkload())), Options{}},
		{"no-chart", pullRequest(), Options{NoChart: true, Title: "capreport: deploy/prod"}},
		{"changed-then-failing", changedThenFailing(), Options{}},
	} {
		out, err := Markdown(c.r, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), "<!-- capreport -->\n") {
			t.Errorf("%s: the marker is not the first line", c.name)
		}
		checkGolden(t, c.name+".golden.md", out)
	}
}

// TestMarkdownWorseFirst: a new failure's row quotes the figure it fails
// on, before and after, and the charts follow the rows' transitions: the
// new failure, then the fixed autoscaler, then the one that got worse.
func TestMarkdownWorseFirst(t *testing.T) {
	out, _ := Markdown(changedThenFailing(), Options{})
	md := string(out)
	row := "| ❌ | shop/HorizontalPodAutoscaler/api | pass → fail | peak 160 → 50 pods vs 100 needed at 10x |"
	if !strings.Contains(md, row) {
		t.Errorf("the failing row does not show its failing figure:\n%s", md)
	}
	if strings.Contains(md, "(same)") {
		t.Errorf("a row quotes a figure that did not move:\n%s", md)
	}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^### \S+ Replicas before and after: (\S+)$`).FindAllStringSubmatch(md, -1) {
		order = append(order, m[1])
	}
	want := []string{"shop/HorizontalPodAutoscaler/api", "shop/HorizontalPodAutoscaler/web", "shop/ScaledObject/orders"}
	if !slices.Equal(order, want) {
		t.Errorf("charts in order %v, want %v", order, want)
	}
}

func TestText(t *testing.T) {
	out, err := Text(pullRequest())
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "pull-request.golden.txt", out)
}

// TestMermaidChart: two runs sampled differently share one numeric time
// axis, each read as a step function, and a one-sample spike survives.
func TestMermaidChart(t *testing.T) {
	base := &contract.Timeline{}
	for i := range 500 {
		base.T = append(base.T, i*10)
		base.Replicas = append(base.Replicas, 5)
	}
	base.Replicas[123] = 99 // a one-sample spike must survive down-sampling
	head := &contract.Timeline{T: []int{0, 2000, 3000}, Replicas: []int32{5, 40, 7}}
	ch := mermaidPair(base, head, `Replicas "after" a 30x step`).String()
	lines := regexp.MustCompile(`(?m)^    line \[(.*)\]$`).FindAllStringSubmatch(ch, -1)
	if len(lines) != 2 {
		t.Fatalf("want two line series:\n%s", ch)
	}
	if !strings.Contains(ch, `x-axis "minutes after the step" 0 --> 83.17`) {
		t.Errorf("the axis does not span both runs (0..4990 s) in minutes:\n%s", ch)
	}
	b, h := strings.Split(lines[0][1], ", "), strings.Split(lines[1][1], ", ")
	if len(b) != len(h) {
		t.Errorf("series of %d and %d points", len(b), len(h))
	}
	if !slices.Contains(b, "99") {
		t.Errorf("the base spike was lost: %s", lines[0][1])
	}
	if !slices.Contains(h, "40") || h[len(h)-1] != "7" {
		t.Errorf("head steps not read as a step function: %s", lines[1][1])
	}
	if strings.Contains(ch, `"after"`) {
		t.Errorf("a quote in the title reached Mermaid:\n%s", ch)
	}
	if !strings.HasPrefix(ch, "```mermaid\n%%{init:") || !strings.Contains(ch, "\nxychart-beta\n") || !strings.HasSuffix(ch, "```\n") {
		t.Errorf("not a fenced xychart-beta block:\n%s", ch)
	}
}

// hostile is a workload whose manifest text tries every trick on a comment.
func hostile(i int, long bool) contract.Workload {
	w := sizeWorkload()
	name := fmt.Sprintf("x%d<img src=x onerror=alert(1)>|@org/team`![p](http://e/x)", i)
	if long {
		name += strings.Repeat("long-name-", 200)
	}
	w.ID = "shop/HorizontalPodAutoscaler/" + name
	w.Metrics = []contract.Metric{{Type: "Resource", Name: "cpu|<b>@admins", Target: "50%"}}
	return w
}

func TestMarkdownEscapes(t *testing.T) {
	b, h := hostile(1, false), hostile(1, false)
	h.MaxReplicas = 2000
	h.Metrics = []contract.Metric{{Type: "Resource", Name: "cpu|<b>@admins", Target: "80%"}}
	out, err := Markdown(Compare(reportOf(b), reportOf(h)), Options{Title: "<script>@here"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	// (A link in the <summary> line is inert: Markdown is not parsed inside
	// that HTML block; goldmark checks that below.)
	for _, bad := range []string{"<img", "<b>@", "<script", "@org", "@admins", "@here"} {
		if strings.Contains(s, bad) {
			t.Errorf("raw %q in the comment:\n%s", bad, s)
		}
	}
	// Every table row keeps its column count: an escaped "|" does not split.
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1))
		if cells != 6 && cells != 5 {
			t.Errorf("row with %d cell boundaries: %s", cells, line)
		}
	}
	// And the rendered HTML has no element we did not write.
	var html bytes.Buffer
	if err := goldmark.New().Convert(out, &html); err != nil {
		t.Fatal(err)
	}
	if h := html.String(); strings.Contains(h, "<img") || strings.Contains(h, "<script") || strings.Contains(h, "<a ") {
		t.Errorf("HTML injection survived rendering:\n%s", html.String())
	}
}

// TestMarkdownSizeLimit: a diff far over GitHub's limit keeps the headline
// and every ledger row and cuts details; an absurd one still fits.
func TestMarkdownSizeLimit(t *testing.T) {
	var base, head []contract.Workload
	for i := range 120 {
		b := hostile(i, false)
		base = append(base, b)
		head = append(head, sizeAt80())
		head[i].ID, head[i].Metrics = b.ID, b.Metrics
		head[i].MaxReplicas = int32(200 + i) // each row its own
	}
	out, err := Markdown(Compare(reportOf(base...), reportOf(head...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if len(s) > 65536 {
		t.Fatalf("%d bytes, over GitHub's limit", len(s))
	}
	if !strings.Contains(s, "**120 autoscalers changed: 120 newly failing**") {
		t.Errorf("headline lost")
	}
	if got := strings.Count(s, "\n| ❌ |"); got != 120 {
		t.Errorf("%d ledger rows, want all 120", got)
	}
	if !strings.Contains(s, "Cut to fit") || strings.Count(s, "<details>") == 120 {
		t.Errorf("details were not cut (%d bytes)", len(s))
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Errorf("a details block was cut in half")
	}

	// Thousands of long names: even the ledger cannot fit, its tail
	// collapses into one line and the headline stays.
	base, head = nil, nil
	for i := range 3000 {
		b := hostile(i, true)
		base = append(base, b)
		h := b
		h.Verdict = contract.VerdictFail
		h.MaxReplicas = int32(200 + i)
		head = append(head, h)
	}
	r := Compare(reportOf(base...), reportOf(head...))
	out, _ = Markdown(r, Options{})
	s = string(out)
	if len(s) > 65536 || !strings.Contains(s, "**3000 autoscalers changed: 3000 newly failing**") || !strings.Contains(s, "more rows of changed autoscalers") {
		t.Errorf("%d bytes; headline or cut line missing:\n%.2000s", len(s), s)
	}
	// The details that could not fit were not written, and the body is
	// the one every detail written would be cut to.
	whole := buildDoc(Compare(reportOf(base...), reportOf(head...)), Options{MaxChars: math.MaxInt}.withDefaults())
	if want := whole.doc.Fit(mdoc.DefaultMaxChars, mdoc.Prefix(whole.details), mdoc.Prefix(whole.charts), mdoc.Prefix(whole.ledger)); s != want {
		t.Errorf("the body differs from the one with every detail written")
	}

	// A small budget is honoured exactly.
	out, _ = Markdown(pullRequest(), Options{MaxChars: 2000})
	if len(out) > 2000 || !strings.Contains(string(out), "| shop/HorizontalPodAutoscaler/web |") {
		t.Errorf("%d bytes for a 2000 budget, or the ledger lost:\n%s", len(out), out)
	}
}

// TestMarkdownImagesAndNote: the head's hosted plots go in the changed
// autoscaler's details; the note stays when details are cut.
func TestMarkdownImagesAndNote(t *testing.T) {
	id := "shop/HorizontalPodAutoscaler/web"
	o := Options{
		Images: map[string][]Image{id: {{Alt: "Replicas", URL: "https://github.com/o/r/raw/abc/pr-1/web.png"}}},
		Note:   "📎 Plots are in [the run's artifacts](https://github.com/o/r/actions/runs/1).",
	}
	out, _ := Markdown(pullRequest(), o)
	s := string(out)
	web := s[strings.Index(s, "<b>"+id+"</b>"):]
	web = web[:strings.Index(web, "</details>")]
	if !strings.Contains(web, "![Replicas](https://github.com/o/r/raw/abc/pr-1/web.png)") {
		t.Errorf("the image is not in the web details:\n%s", web)
	}
	o.MaxChars, o.LimitName = 900, "a small budget"
	out, _ = Markdown(pullRequest(), o)
	if !strings.Contains(string(out), o.Note) || !strings.Contains(string(out), "Cut to fit a small budget:") {
		t.Errorf("note or limit name lost:\n%s", out)
	}
}

// TestKeyCell: two key figures merge on their common words, and never
// between a value and its unit.
func TestKeyCell(t *testing.T) {
	for _, c := range []struct{ before, after, want string }{
		{"4 rounds at 30x", "15 rounds at 30x", "4 → 15 rounds at 30x"},
		{"peak 160 pods vs 100 needed at 10x", "peak 50 pods vs 100 needed at 10x", "peak 160 → 50 pods vs 100 needed at 10x"},
		{"peak wait at 30x: 5 min 51 s vs 5 min target", "peak wait at 30x: 20 min 32 s vs 5 min target",
			"peak wait at 30x: 5 min 51 s → 20 min 32 s vs 5 min target"},
		{"peak wait at 30x: 5 min 51 s vs 5 min target", "peak wait at 30x: 5 min 40 s vs 5 min target",
			"peak wait at 30x: 5 min 51 s → 5 min 40 s vs 5 min target"},
		{"rests 19..21 pods", "hunts 6..35 pods", "rests 19..21 → hunts 6..35 pods"},
		{"unpriced", "4 rounds at 30x", "unpriced → 4 rounds at 30x"},
		{"4 rounds at 30x", "4 rounds at 30x", "4 rounds at 30x (same)"},
	} {
		if got := keyCell(Change{KeyBefore: c.before, KeyAfter: c.after}); got != c.want {
			t.Errorf("keyCell(%q, %q) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
}
