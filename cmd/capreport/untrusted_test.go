package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/rules"
)

// In the fork-safe workflow the comment job reads report.json from the
// fork's artifact, so every string in it is the attacker's. These tests
// render such reports the way comment github does (decodeReport, then the
// body of the report or of the diff) and look for anything GitHub would
// make live.

// hostile are the strings the attacks of issue 11 use, and their kin.
var hostile = []string{
	"![t](https://evil.example/track.png)",
	"[click](https://evil.example/)",
	"see #123 and org/repo#45 and GH-7",
	"@admin please @org/team",
	"<img src=x onerror=alert(1)>",
	"https://evil.example/t.png www.evil.example a@b.example",
	"<!-- capreport -->",
	"&#35;123 &lt;b&gt;",
	"`code` *em* | cell | \\[x\\](y)",
	"line\nbreak\r\n# heading",
	"www\\.evil.example \\@admin \\#12 gh\\-1 w\\ww.evil.example",
}

// untrustedReport is a schema-valid report with one failing workload whose
// strings are s wherever mask (one bit per field) says, "x" elsewhere.
func untrustedReport(s string, mask uint16) rules.Report {
	pick := func(bit uint, def string) string {
		if mask&(1<<bit) != 0 {
			return s
		}
		return def
	}
	f := rules.Finding{Check: pick(0, "dead-band"), Severity: rules.SeverityError, Message: pick(1, "x"),
		Remediation: pick(2, "x"), Location: &rules.Location{File: pick(3, "hpa.yaml"), Line: 3, Source: pick(4, "chart")}}
	w := rules.Workload{
		ID:         pick(5, "shop/HorizontalPodAutoscaler/web"),
		Autoscaler: rules.Ref{Kind: "HorizontalPodAutoscaler", Name: pick(6, "web"), Namespace: pick(7, "shop")},
		Target:     rules.Ref{Kind: "Deployment", Name: pick(8, "web")},
		Source:     rules.Location{File: pick(9, "hpa.yaml"), Line: 1}, Signal: "unknown",
		MinReplicas: 1, MaxReplicas: 5, Metrics: []rules.Metric{},
		Assumptions:    map[string]rules.Assumption{"dead-time": {Value: pick(10, "90s"), From: "default", Where: &rules.Location{File: pick(11, "x")}}},
		Verdict:        rules.VerdictFail,
		UnpricedReason: pick(12, ""),
		Findings:       []rules.Finding{f},
	}
	return rules.Report{
		SchemaVersion: rules.SchemaVersion,
		Tool:          rules.Tool{Name: pick(13, "capreport"), Version: pick(14, "v0.1.0-test")},
		Root:          pick(15, "./deploy"),
		Workloads:     []rules.Workload{w},
		Sources:       []rules.Source{{Path: pick(2, "chart"), Type: "helm", Status: "failed", Reason: pick(1, "x")}},
		Findings:      []rules.Finding{f},
	}
}

// bodies renders r as comment github would: the report, and the diff from
// a base where the workload passed.
func bodies(r *rules.Report) [][]byte {
	base := *r
	base.Workloads = []rules.Workload{r.Workloads[0]}
	base.Workloads[0].Verdict = rules.VerdictPass
	base.Workloads[0].Findings = []rules.Finding{}
	return [][]byte{
		(&loaded{head: r}).body("capreport", report.DefaultMaxChars, 0, "", "", nil),
		(&loaded{head: r, base: &base}).body("capreport", report.DefaultMaxChars, 0, "", "", nil),
	}
}

var (
	htmlTag = regexp.MustCompile(`<[^>]*>?`)
	// The only HTML capreport writes: the marker, details blocks, bold,
	// the footer's <sub> and line breaks in findings.
	ownTag = regexp.MustCompile(`^(<!-- capreport -->|<details>|<details open>|</details>|<summary>|</summary>|<b>|</b>|<sub>|</sub>|<br>)$`)
)

// liveMarkdown parses md as GitHub Flavored Markdown and returns what
// would be live in a comment: images, links and autolinks, HTML that is
// not capreport's, and text GitHub links after rendering (outside code,
// which it leaves alone). capreport writes no link or image itself when
// it is given no plots, images or note, so any is the report's.
func liveMarkdown(md []byte) []string {
	return liveIn(gfmParser(), md)
}

// liveIn is liveMarkdown with a parser built once (the fuzz target's).
func liveIn(p parser.Parser, md []byte) []string {
	var live []string
	doc := p.Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindImage, ast.KindLink, ast.KindAutoLink:
			live = append(live, fmt.Sprintf("%s %q", n.Kind(), nodeText(n, md)))
		case ast.KindCodeSpan, ast.KindFencedCodeBlock, ast.KindCodeBlock:
			return ast.WalkSkipChildren, nil
		case ast.KindRawHTML, ast.KindHTMLBlock:
			raw := nodeText(n, md)
			for _, tag := range htmlTag.FindAllString(raw, -1) {
				if !ownTag.MatchString(tag) {
					live = append(live, fmt.Sprintf("HTML %q", tag))
				}
			}
			live = append(live, textLinks(htmlTag.ReplaceAllString(raw, " "), false)...)
		case ast.KindText, ast.KindString:
			live = append(live, textLinks(nodeText(n, md), true)...)
		}
		return ast.WalkContinue, nil
	})
	return live
}

// ownTags are the HTML capreport writes, as they start in the source.
var ownTags = []string{"<!-- capreport -->", "<details>", "<details open>", "</details>", "<summary>", "</summary>",
	"<b>", "</b>", "<sub>", "</sub>", "<br>"}

// liveSource is liveMarkdown by a scan of the source, cheap enough for the
// fuzz targets and stricter than the parse: outside fenced code (the
// Mermaid charts) and HTML blocks, an unescaped "[" could open a link or
// an image, any "<" that does not start one of capreport's tags could be
// HTML or an autolink, and text is held to textLinks.
// TestUntrustedReportInert runs both checks. It finds the few bytes that
// matter with the strings package's searches, not a loop over every byte:
// when fuzzing, every comparison in Go code calls the fuzzer's hook (the
// searches are assembly, which is not instrumented), and the byte loop
// and the regexp were a quarter of FuzzUntrustedReport's time.
func liveSource(md []byte) []string {
	var live []string
	fenced := false
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		// A line opening with <details> or <summary> starts an HTML block
		// (CommonMark type 6), where Markdown is not parsed; its text ends
		// at the line's end, since escaping turns line breaks into spaces.
		htmlBlock := strings.HasPrefix(line, "<details") || strings.HasPrefix(line, "</details") || strings.HasPrefix(line, "<summary")
		if !htmlBlock {
			for range unescaped(line, '[') {
				live = append(live, fmt.Sprintf("unescaped [ in %q", line))
			}
		}
		for _, i := range unescaped(line, '<') {
			if !hasOwnTag(line[i:]) {
				live = append(live, fmt.Sprintf("HTML at %q", line[i:min(len(line), i+20)]))
			}
		}
		live = append(live, textLinks(withoutOwnTags(line), !htmlBlock)...)
	}
	return live
}

// unescaped returns the offsets of c in line that no backslash escapes: a
// backslash escapes the byte after it, so c is escaped when the run of
// backslashes before it is odd.
func unescaped(line string, c byte) []int {
	var at []int
	for i := 0; ; i++ {
		j := strings.IndexByte(line[i:], c)
		if j < 0 {
			return at
		}
		i += j
		n := 0
		for n < i && line[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			at = append(at, i)
		}
	}
}

// withoutOwnTags is line with each of capreport's tags replaced by a
// space, as htmlTag.ReplaceAllStringFunc(line, …) would: a tag runs from
// "<" to the next ">" or the end. A scan, not the regexp, for the fuzz
// targets.
func withoutOwnTags(line string) string {
	if strings.IndexByte(line, '<') < 0 {
		return line
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '<')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		end := len(line)
		if j := strings.IndexByte(line[i:], '>'); j >= 0 {
			end = i + j + 1
		}
		b.WriteString(line[:i])
		if tag := line[i:end]; hasOwnTag(tag) {
			b.WriteByte(' ')
		} else {
			b.WriteString(tag)
		}
		line = line[end:]
	}
}

func hasOwnTag(s string) bool {
	for _, t := range ownTags {
		if strings.HasPrefix(s, t) {
			return true
		}
	}
	return false
}

// textLinks is what GitHub would link in a run of text: mentions (and
// email autolinks), issue references (#1, org/repo#1, GH-1) and URL
// autolinks; an entity (&#39;) is not a reference. GitHub links the text
// as rendered, so Markdown's backslash escapes are undone first (markdown);
// in HTML a backslash is a character like any other. Each kind of link
// starts with a marker that strings.Index finds; only its hits are looked
// at, not every byte (see liveSource).
func textLinks(s string, markdown bool) []string {
	if markdown {
		s = unescapeMarkdown(s)
	}
	t := strings.ToLower(s)
	var out []string
	for _, m := range linkMarkers {
		for i := 0; ; i++ {
			j := strings.Index(t[i:], m.marker)
			if j < 0 {
				break
			}
			i += j
			if n := m.hit(t, i); n > 0 {
				out = append(out, fmt.Sprintf("text %q in %q", t[i:i+n], s))
			}
		}
	}
	return out
}

// linkMarkers start the links of textLinks; hit is the length of the
// marked text at t[i:] when it is a link, else 0.
var linkMarkers = []struct {
	marker string
	hit    func(t string, i int) int
}{
	{"@", func(t string, i int) int { return linkIf(i+1 < len(t) && isAlnum(t[i+1]), 2) }},
	{"#", func(t string, i int) int {
		return linkIf(i+1 < len(t) && isDigit(t[i+1]) && (i == 0 || t[i-1] != '&'), 2)
	}},
	{"://", func(string, int) int { return 3 }},
	{"www.", func(string, int) int { return 3 }},
	{"gh-", func(t string, i int) int { return linkIf(i+3 < len(t) && isDigit(t[i+3]), 4) }},
}

// unescapeMarkdown is s as CommonMark renders its backslash escapes: a
// backslash before ASCII punctuation gives that character (so "\\" is one
// backslash), before anything else it stays.
func unescapeMarkdown(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	var b strings.Builder
	for ; i >= 0; i = strings.IndexByte(s, '\\') {
		b.WriteString(s[:i])
		if i+1 < len(s) && isASCIIPunct(s[i+1]) {
			b.WriteByte(s[i+1])
			s = s[i+2:]
			continue
		}
		b.WriteByte('\\')
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

func linkIf(ok bool, n int) int {
	if ok {
		return n
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'z') }

// nodeText is a node's source: its lines (blocks), its segment (text,
// raw HTML), or its children's.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	switch v := n.(type) {
	case *ast.Text:
		return string(v.Segment.Value(src))
	case *ast.String:
		return string(v.Value)
	case *ast.RawHTML:
		for i := 0; i < v.Segments.Len(); i++ {
			s := v.Segments.At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	case *ast.AutoLink:
		return string(v.URL(src))
	}
	if n.Type() == ast.TypeBlock {
		if lines := n.Lines(); lines != nil && lines.Len() > 0 {
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				b.Write(s.Value(src))
			}
			return b.String()
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(nodeText(c, src))
	}
	return b.String()
}

// checkUntrusted is the property: a report that decodes renders with
// nothing live from its strings, by liveSource and, when p is not nil, by
// a GitHub Flavored Markdown parse. It reports whether the report decoded.
func checkUntrusted(t testing.TB, v *report.Validator, p parser.Parser, doc []byte) bool {
	t.Helper()
	r, err := decodeReport("report.json", doc, v)
	if err != nil {
		if strings.Count(err.Error(), "\n") > 25 {
			t.Fatalf("the error has %d lines", strings.Count(err.Error(), "\n"))
		}
		return false
	}
	if live, md := liveBodies(p, r); len(live) > 0 {
		t.Fatalf("live in the comment: %s\n%s", strings.Join(live, "; "), md)
	}
	return true
}

// liveBodies is what is live in the first of r's bodies that has anything
// live, and that body: by liveSource and, when p is not nil, by p.
func liveBodies(p parser.Parser, r *rules.Report) ([]string, []byte) {
	for _, md := range bodies(r) {
		live := liveSource(md)
		if p != nil {
			live = append(live, liveIn(p, md)...)
		}
		if len(live) > 0 {
			return live, md
		}
	}
	return nil, nil
}

// The tool's patterns, compiled once: builtValid runs on every execution.
var (
	toolNameRE    = regexp.MustCompile(report.ToolNamePattern)
	toolVersionRE = regexp.MustCompile(report.ToolVersionPattern)
)

// builtValid tells whether r, a report built by untrustedReport (or
// buildMergeInput) and decoded, passes the schema. Such a report's
// strings are free text to the schema but for the tool's fields, which
// have patterns, the workload ids, which must not be empty, and
// generatedAt, never set, which must be a time. TestBuiltValid holds it
// to the validator. The fuzz targets that build their reports use it to
// skip the schema check of the reports they build: at some 100 µs a
// report, the largest part of an execution.
func builtValid(r *rules.Report) bool {
	if !toolNameRE.MatchString(r.Tool.Name) || !toolVersionRE.MatchString(r.Tool.Version) || r.GeneratedAt != "" {
		return false
	}
	for _, w := range r.Workloads {
		if w.ID == "" {
			return false
		}
	}
	return true
}

// decodeBuilt decodes a report the test built as decodeReport does once
// the schema passed it, without decodeReport's first parse, for the
// schemaVersion a built report has right: each parse of a report is
// about a tenth of a FuzzMerge execution. TestBuiltValid holds it to
// decodeReport.
func decodeBuilt(t testing.TB, name string, doc []byte) *rules.Report {
	t.Helper()
	var r rules.Report
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatalf("%s: a built report does not decode: %v", name, err)
	}
	r.Summary = rules.Summarize(&r)
	return &r
}

// gfmParser parses as GitHub does: GitHub Flavored Markdown, autolinks
// included.
func gfmParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
}

func newValidator(t testing.TB) *report.Validator {
	t.Helper()
	v, err := report.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func marshal(t testing.TB, r rules.Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUntrustedReportInert: every hostile string in every field is either
// refused (the tool's fields) or rendered inert, in the report and in the
// diff; the checker sees the attacks when the strings are not escaped.
func TestUntrustedReportInert(t *testing.T) {
	v, p := newValidator(t), gfmParser()
	for _, s := range hostile {
		for bit := uint(0); bit < 16; bit++ {
			checkUntrusted(t, v, p, marshal(t, untrustedReport(s, 1<<bit)))
		}
	}
	// Without validation (a trusted local file) the tool's fields reach the
	// footer: escaped there too.
	for _, s := range hostile {
		r := untrustedReport(s, 1<<13|1<<14|1<<15)
		got, err := decodeReport("report.json", marshal(t, r), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, md := range bodies(got) {
			if live := liveMarkdown(md); len(live) > 0 {
				t.Errorf("%q in tool and root: live in the comment: %s", s, strings.Join(live, "; "))
			}
		}
	}
	// The checkers are not blind.
	raw := "<sub>capreport ![t](https://evil.example/track.png) #123 org/repo#45 @admin <img src=x> GH-1 www.x.example www\\.y.example</sub>\n"
	if live := liveMarkdown([]byte(raw)); len(live) < 5 {
		t.Errorf("the parse found only %q in %q", live, raw)
	}
	if live := liveSource([]byte(raw)); len(live) < 8 {
		t.Errorf("the scan found only %q in %q", live, raw)
	}
}

// TestUntrustedToolFields: tool.name and tool.version are held to their
// patterns and generatedAt to RFC 3339 where the artifact is read.
func TestUntrustedToolFields(t *testing.T) {
	v := newValidator(t)
	for _, c := range []struct {
		name, version, generatedAt string
		want                       string // "" accepts
	}{
		{name: "capreport", version: "v0.1.0-test", generatedAt: "2026-11-30T12:00:00Z"},
		{name: "capreport", version: "dev"},
		{name: "capreport", version: "v1.2.3-0.20261130120000-abcdef123456+dirty"},
		{name: "![t](https://evil.example/track.png)", version: "dev", want: "tool.name"},
		{name: "capreport", version: "1.0 #123", want: "tool.version"},
		{name: "capreport", version: "org/repo#45", want: "tool.version"},
		{name: "capreport", version: "@admin", want: "tool.version"},
		{name: "capreport", version: strings.Repeat("1", 65), want: "tool.version"},
		{name: "capreport", version: "dev", generatedAt: "[x](https://evil.example)", want: "generatedAt"},
	} {
		r := untrustedReport("x", 0)
		r.Tool = rules.Tool{Name: c.name, Version: c.version}
		r.GeneratedAt = c.generatedAt
		_, err := decodeReport("report.json", marshal(t, r), v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q %q: refused: %v", c.name, c.version, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q %q: err = %v, want one naming %s", c.name, c.version, c.generatedAt, err, c.want)
		}
	}
}

// TestBuiltValid: builtValid says what the schema says of every report
// the fuzz targets build, for strings the tool's patterns take and refuse,
// in each field alone, in the tool's and the id's together, and with
// buildMergeInput's second workload; and decodeBuilt decodes each as
// decodeReport does.
func TestBuiltValid(t *testing.T) {
	v := newValidator(t)
	other := decodeBuilt(t, "other.json", marshal(t, untrustedReport("x", 0)))
	masks := []uint16{0, 0xffff, 1<<5 | 1<<13, 1<<5 | 1<<14, 1<<13 | 1<<14}
	for bit := range 16 {
		masks = append(masks, 1<<bit)
	}
	strs := append([]string{"", "capreport", "dev", "v1.2.3-rc.1+x", "_x", "9", "a b", "é", "\xff", "x\n",
		strings.Repeat("a", 64), strings.Repeat("a", 65)}, hostile...)
	valid := map[bool]int{}
	for _, s := range strs {
		for _, mask := range masks {
			for shape := range 3 {
				doc := marshal(t, buildMergeInput(s, mask, shape > 0, shape > 1, other))
				want := v.Validate(doc)
				r := decodeBuilt(t, "r.json", doc)
				if got := builtValid(r); got != (want == nil) {
					t.Errorf("%q, mask %#x, shape %d: builtValid %v, the schema: %v", s, mask, shape, got, want)
				}
				if d, err := decodeReport("r.json", doc, nil); err != nil || !reflect.DeepEqual(d, r) {
					t.Errorf("%q, mask %#x, shape %d: decodeReport %v, decodeBuilt %+v", s, mask, shape, err, r)
				}
				valid[want == nil]++
			}
		}
	}
	if valid[true] == 0 || valid[false] == 0 {
		t.Errorf("valid and not: %v", valid)
	}
}

// TestUntrustedHeadlineRecomputed: the headline counts the workloads, not
// the artifact's summary.
func TestUntrustedHeadlineRecomputed(t *testing.T) {
	r := untrustedReport("x", 0)
	r.Summary = rules.Summary{Autoscalers: 3, Pass: 3}
	got, err := decodeReport("report.json", marshal(t, r), newValidator(t))
	if err != nil {
		t.Fatal(err)
	}
	bs := bodies(got)
	if s := string(bs[0]); !strings.Contains(s, "**1 autoscaler:** ❌ 1 fail · ⚠️ 0 warn · ✅ 0 pass") {
		t.Errorf("report headline:\n%.400s", s)
	}
	if s := string(bs[1]); !strings.Contains(s, "Head: 1 autoscaler — ❌ 1 fail · ⚠️ 0 warn · ✅ 0 pass") {
		t.Errorf("diff headline:\n%.400s", s)
	}
}

// TestSchemaErrorsBounded: an artifact with 140,000 broken workloads gets
// a short error, not a line per workload.
func TestSchemaErrorsBounded(t *testing.T) {
	doc := `{"schemaVersion": "` + rules.SchemaVersion + `", "tool": {"name": "capreport", "version": "t"}, "root": "r",
"summary": {"autoscalers": 0, "pass": 0, "warn": 0, "fail": 0, "unpriced": 0, "errors": 0, "warnings": 0},
"sources": [], "findings": [], "workloads": [` + strings.TrimSuffix(strings.Repeat(`{"id": 1},`, 140000), ",") + `]}`
	env := map[string]string{}
	r := runGitHub(t, env, "summary", "--report", writeTemp(t, "big.json", doc), "--summary", "-")
	if r.code != exitError {
		t.Fatalf("exit %d", r.code)
	}
	if n := strings.Count(r.errOut, "\n"); n > 25 || !strings.Contains(r.errOut, "more") || !strings.Contains(r.errOut, "/workloads/0") {
		t.Errorf("%d stderr lines:\n%.2000s", n, r.errOut)
	}
}

// FuzzUntrustedReport is the property of TestUntrustedReportInert for any
// string in any set of fields (mask): the tool's fields are refused or
// inert, every other string renders inert, in the report and in the diff.
// A report builtValid takes is rendered without the schema check, which
// would pass it; should it render anything live, the check runs then, to
// tell a rendering bug from a builtValid behind the schema. Any other
// report goes the way of an artifact: refused, or rendered and checked.
func FuzzUntrustedReport(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, uint16(1)<<(i%16))
	}
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, s string, mask uint16) {
		doc := marshal(t, untrustedReport(s, mask))
		r := decodeBuilt(t, "report.json", doc)
		if !builtValid(r) {
			checkUntrusted(t, v, nil, doc)
			return
		}
		if live, md := liveBodies(nil, r); len(live) > 0 {
			if err := v.Validate(doc); err != nil {
				t.Fatalf("builtValid takes a report the schema refuses: %v", err)
			}
			t.Fatalf("live in the comment: %s\n%s", strings.Join(live, "; "), md)
		}
	})
}

// FuzzUntrustedDocument: whatever the artifact holds, decoding it never
// panics, its error stays short, and a document that decodes renders with
// nothing live from its strings.
func FuzzUntrustedDocument(f *testing.F) {
	f.Add([]byte(nil))
	f.Add([]byte(`{"schemaVersion": "` + rules.SchemaVersion + `", "workloads": "many"}`))
	for i, s := range hostile[:4] {
		f.Add(marshal(f, untrustedReport(s, uint16(0xffff)>>(i+1))))
	}
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkUntrusted(t, v, nil, doc)
	})
}
