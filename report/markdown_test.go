package report

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mdoc"
	"github.com/capreport/capreport/report/internal/mermaid"
)

func TestMarkdown(t *testing.T) {
	o := Options{Plots: map[string][]string{
		"shop/HorizontalPodAutoscaler/checkout": {"plots/shop-checkout-replicas.svg", "plots/shop checkout (rounds).svg"},
	}}
	got, err := Markdown(specimenReport(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "specimen.golden.md", got)

	s := string(got)
	if !strings.HasPrefix(s, Marker+"\n") {
		t.Error("the hidden marker is not the first line")
	}
	if strings.Contains(s, "Cut to fit") {
		t.Error("the specimen was cut though it fits")
	}
	// Every workload has its details, and the worst ones have a chart.
	if n := strings.Count(s, "<details><summary>"); n != 5+1 {
		t.Errorf("%d <details> blocks, want 5 workloads + sources", n)
	}
	if n := strings.Count(s, "```mermaid"); n != 2 {
		t.Errorf("%d Mermaid charts, want 2 (the two failing workloads carry timelines)", n)
	}
	if !strings.Contains(s, "(plots/shop%20checkout%20%28rounds%29.svg)") {
		t.Error("plot path not escaped into a link destination")
	}
}

// renderGFM renders Markdown the way GitHub's parser would for our purposes:
// CommonMark with GFM tables, raw HTML allowed.
func renderGFM(t *testing.T, md []byte) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.Table), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// firstTableRows counts the body rows of the first <table> (the ledger).
func firstTableRows(t *testing.T, page string) int {
	t.Helper()
	start := strings.Index(page, "<table>")
	end := strings.Index(page, "</table>")
	if start < 0 || end < start {
		t.Fatalf("no <table> in rendered Markdown:\n%s", page)
	}
	table := page[start:end]
	body := table[strings.Index(table, "<tbody>"):]
	return strings.Count(body, "<tr>")
}

// The ledger must survive a real Markdown parser as one table with one row
// per workload, even when names carry pipes, newlines and HTML.
func TestMarkdownLedgerRendersAsTable(t *testing.T) {
	r := specimenReport()
	r.Workloads[2].ID = "search/HorizontalPodAutoscaler/a|b\nc <td>x</td> \\"
	r.Workloads[2].UnpricedReason = "pipe | and backslash \\"
	md, err := Markdown(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := renderGFM(t, md)
	if n := firstTableRows(t, page); n != len(r.Workloads) {
		t.Errorf("ledger renders %d rows, want %d", n, len(r.Workloads))
	}
	// Each row keeps its six cells: a pipe in a name did not split one.
	ledger := page[strings.Index(page, "<table>"):strings.Index(page, "</table>")]
	for i, row := range strings.Split(ledger, "<tr>")[2:] {
		if n := strings.Count(row, "<td"); n != 6 {
			t.Errorf("ledger row %d has %d cells, want 6:\n%s", i, n, row)
		}
	}
	// GFM ignores excess cells, so a count alone would miss a split: the
	// name must come out whole in its own cell.
	if want := `<td>search/HorizontalPodAutoscaler/a|b c &lt;td&gt;x&lt;/td&gt; \</td>`; !strings.Contains(ledger, want) {
		t.Errorf("ledger lacks the intact cell %s:\n%s", want, ledger)
	}
	if strings.Contains(page, "<td>x</td>") {
		t.Error("raw HTML from a workload name reached the page")
	}
}

// Text from manifests can neither inject HTML nor mention people.
func TestMarkdownEscapesManifestText(t *testing.T) {
	r := specimenReport()
	w := &r.Workloads[3] // checkout: has details, a chart and findings
	w.ID = "shop/HorizontalPodAutoscaler/<script>alert(1)</script>"
	w.Target.Name = "@org/team"
	w.Findings[0].Message = "ping @octocat <img src=x onerror=alert(1)> [click](javascript:alert(1)) ![i](https://evil.example/x.png)"
	w.Findings[0].Remediation = "`code` **bold** $x$ ~~s~~"
	w.Assumptions["deadTime"] = contract.Assumption{Value: "90s</summary></details><script>", From: "annotation"}
	md, err := Markdown(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, bad := range []string{"<script", "<img", "@org/team", "@octocat", "[click](javascript:", "</summary></details><script>"} {
		if strings.Contains(s, bad) {
			t.Errorf("Markdown contains %q", bad)
		}
	}
	page := renderGFM(t, md)
	for _, bad := range []string{"<script", "<img", "<a href", "<code>", "<strong>bold", "<del>"} {
		if strings.Contains(page, bad) {
			t.Errorf("rendered Markdown contains live %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "@\u200dorg/team", "@\u200doctocat"} {
		if !strings.Contains(page, want) {
			t.Errorf("rendered Markdown lacks the escaped text %q", want)
		}
	}
	// The details still close: the summary's HTML was not broken open.
	if o, c := strings.Count(page, "<details>"), strings.Count(page, "</details>"); o != c {
		t.Errorf("%d <details> but %d </details>", o, c)
	}
}

// A monorepo with 2,000 autoscalers still fits one comment: the headline
// stays, a line says what was cut, and the body parses.
func TestMarkdownSizeLimit(t *testing.T) {
	r := syntheticReport(2000)
	md, err := Markdown(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(md) >= GitHubCommentLimit {
		t.Fatalf("body is %d bytes, the limit is %d", len(md), GitHubCommentLimit)
	}
	if len(md) > DefaultMaxChars {
		t.Fatalf("body is %d bytes, over MaxChars %d", len(md), DefaultMaxChars)
	}
	s := string(md)
	if !strings.HasPrefix(s, Marker+"\n") {
		t.Error("marker lost")
	}
	if !strings.Contains(s, headline(r.Summary)) {
		t.Error("headline lost")
	}
	if !strings.Contains(s, "Cut to fit GitHub's 65,536-character comment limit") {
		t.Error("no line says what was cut")
	}
	more := regexp.MustCompile(`…and (\d+) more autoscalers`).FindStringSubmatch(s)
	if more == nil {
		t.Fatal("ledger rows were not collapsed into an \"…and N more\" line")
	}
	var hidden int
	fmt.Sscan(more[1], &hidden)
	if rows := firstTableRows(t, renderGFM(t, md)); rows+hidden != 2000 {
		t.Errorf("%d rows shown + %d collapsed != 2000", rows, hidden)
	}
	// The budget is used, not wasted: at least 90 % of it.
	if len(md) < DefaultMaxChars*9/10 {
		t.Errorf("body is only %d bytes", len(md))
	}
}

// Details are cut from the least bad workload up: the worst keep theirs.
func TestMarkdownCutsDetailsLeastBadFirst(t *testing.T) {
	r := specimenReport()
	full, _ := Markdown(r, Options{})
	// A budget that fits everything but about one workload's details.
	limit := len(full) - 800
	md, err := Markdown(r, Options{MaxChars: limit})
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	if len(md) > limit {
		t.Fatalf("body is %d bytes, over %d", len(md), limit)
	}
	if !strings.Contains(s, "Cut to fit") || !strings.Contains(s, "the details of") {
		t.Error("no cut notice for details")
	}
	worst := "<b>payments/ScaledObject/ledger-consumer</b>"
	if !strings.Contains(s, worst) {
		t.Error("the worst workload lost its details")
	}
	if strings.Contains(s, "<b>search/HorizontalPodAutoscaler/query-api</b>") {
		t.Error("the least bad (unpriced) workload kept its details while others were cut")
	}
	// The ledger is whole.
	if n := firstTableRows(t, renderGFM(t, md)); n != len(r.Workloads) {
		t.Errorf("ledger has %d rows, want %d", n, len(r.Workloads))
	}
}

// Even an absurd budget keeps marker and headline and stays under it.
func TestMarkdownTinyBudget(t *testing.T) {
	r := syntheticReport(50)
	for _, limit := range []int{600, 2000, 5000} {
		md, _ := Markdown(r, Options{MaxChars: limit})
		if len(md) > limit {
			t.Errorf("limit %d: body is %d bytes", limit, len(md))
		}
		if !strings.Contains(string(md), headline(r.Summary)) {
			t.Errorf("limit %d: headline lost", limit)
		}
	}
}

func TestMermaidDownsample(t *testing.T) {
	w := specimenLedger() // 121 samples over the last hour
	tl, title := chartTimeline(w)
	ch := mermaidChart(tl, title)
	line := regexp.MustCompile(`(?m)^    line \[(.*)\]$`).FindStringSubmatch(ch)
	if line == nil {
		t.Fatalf("no line series:\n%s", ch)
	}
	pts := strings.Split(line[1], ", ")
	if len(pts) > 2*mermaid.Buckets {
		t.Errorf("%d points, want at most %d", len(pts), 2*mermaid.Buckets)
	}
	// The swing survives down-sampling: both extremes are still plotted.
	if !slices.Contains(pts, "35") || !slices.Contains(pts, "6") {
		t.Errorf("down-sampled series lost the band 6..35: %s", line[1])
	}
	// A numeric time axis in minutes for an hour, pods from 0.
	if !regexp.MustCompile(`(?m)^    x-axis "minutes after the step" -?[0-9.]+ --> [0-9.]+$`).MatchString(ch) ||
		!strings.Contains(ch, `y-axis "pods" 0 --> 40`) {
		t.Errorf("axes:\n%s", ch)
	}
	if !strings.Contains(ch, "Blue: replicas; orange: pods needed.") {
		t.Errorf("caption does not name the colours:\n%s", ch)
	}
	if got := mermaidChart(&contract.Timeline{T: []int{0, 1}, Replicas: []int32{1}}, "x"); got != "" {
		t.Errorf("a ragged timeline charted: %q", got)
	}
}

// TestMarkdownImagesNoteAndLimitName: hosted plots appear in the details
// (only http(s) links, escaped), the note stays under the headline even
// when everything else is cut, and the notice names the given budget.
func TestMarkdownImagesNoteAndLimitName(t *testing.T) {
	id := "shop/HorizontalPodAutoscaler/checkout"
	o := Options{
		Images: map[string][]Image{id: {
			{Alt: "Replicas [after] a step", URL: "https://github.com/o/r/raw/abc/pr-1/a (1).png"},
			{Alt: "evil", URL: "javascript:alert(1)"},
		}},
		Note: "📎 See [the run](https://github.com/o/r/actions/runs/1).",
	}
	got, _ := Markdown(specimenReport(), o)
	s := string(got)
	if !strings.Contains(s, "![Replicas \\[after\\] a step](https://github.com/o/r/raw/abc/pr-1/a%20%281%29.png)") {
		t.Errorf("image missing or unescaped:\n%s", s)
	}
	if strings.Contains(s, "javascript:") {
		t.Error("a javascript: link was rendered")
	}
	o.MaxChars, o.LimitName = 1500, "the job summary's 1 MiB limit"
	cut, _ := Markdown(specimenReport(), o)
	if !strings.Contains(string(cut), o.Note) || !strings.Contains(string(cut), "Cut to fit the job summary's 1 MiB limit:") {
		t.Errorf("note or limit name lost when cut:\n%s", cut)
	}
}

// TestDetailsPastTheLimitUnwritten: the details that cannot fit are not
// written, and the body is the one every detail written would be cut to,
// notice and counts included, in the comment and on the page.
func TestDetailsPastTheLimitUnwritten(t *testing.T) {
	r := specimenReport()
	var ws []contract.Workload
	for i := range 2000 {
		w := r.Workloads[i%len(r.Workloads)]
		w.ID = fmt.Sprintf("%s-%d", w.ID, i)
		ws = append(ws, w)
	}
	r.Workloads = ws
	o := Options{}.withDefaults()
	b := buildMarkdown(r, o, commentMedium{}, o.MaxChars)
	if n := strings.Count(strings.Join(b.details.Items, ""), "</details>"); n == 0 || n > 200 {
		t.Errorf("%d of 2000 details written for a %d-byte body", n, o.MaxChars)
	}
	whole := buildMarkdown(r, o, commentMedium{}, math.MaxInt)
	want := whole.doc.Fit(o.MaxChars, mdoc.Prefix(whole.details), mdoc.Drop(whole.sources), mdoc.Prefix(whole.ledger))
	got, err := Markdown(r, o)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("the comment differs from the one with every detail written")
	}
	if !strings.Contains(want, "the details of ") {
		t.Errorf("nothing was cut: the test proves nothing")
	}
}
