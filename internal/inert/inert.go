// Package inert holds what the tests of untrusted reports share: the
// hostile strings of issue 11, reports built from them, the comment bodies
// GitHub would show, and the checkers that find anything GitHub would make
// live in those bodies (links, images, HTML, mentions, references,
// autolinks). In the fork-safe workflow the comment job reads report.json
// from the artifact of a pull request's code, so every string in it is the
// attacker's. Only tests import it; it links no pipeline code, so the fuzz
// targets that use it run in small binaries.
package inert

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/artifact"
	"github.com/capreport/capreport/report/diff"
)

// Hostile are the strings the attacks of issue 11 use, and their kin.
func Hostile() []string { return append([]string(nil), hostile...) }

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

// Report is a schema-valid report with one failing workload whose
// strings are s wherever mask (one bit per field) says, "x" elsewhere.
func Report(s string, mask uint16) contract.Report {
	pick := func(bit uint, def string) string {
		if mask&(1<<bit) != 0 {
			return s
		}
		return def
	}
	f := contract.Finding{Check: pick(0, "dead-band"), Severity: check.SeverityError, Message: pick(1, "x"),
		Remediation: pick(2, "x"), Location: &contract.Location{File: pick(3, "hpa.yaml"), Line: 3, Source: pick(4, "chart")}}
	w := contract.Workload{
		ID:         pick(5, "shop/HorizontalPodAutoscaler/web"),
		Autoscaler: contract.Ref{Kind: "HorizontalPodAutoscaler", Name: pick(6, "web"), Namespace: pick(7, "shop")},
		Target:     contract.Ref{Kind: "Deployment", Name: pick(8, "web")},
		Source:     contract.Location{File: pick(9, "hpa.yaml"), Line: 1}, Signal: "unknown",
		MinReplicas: 1, MaxReplicas: 5, Metrics: []contract.Metric{},
		Assumptions:    map[string]contract.Assumption{"dead-time": {Value: pick(10, "90s"), From: "default", Where: &contract.Location{File: pick(11, "x")}}},
		Verdict:        contract.VerdictFail,
		UnpricedReason: pick(12, ""),
		Findings:       []contract.Finding{f},
	}
	return contract.Report{
		SchemaVersion: contract.SchemaVersion,
		Tool:          contract.Tool{Name: pick(13, "capreport"), Version: pick(14, "v0.1.0-test")},
		Root:          pick(15, "./deploy"),
		Workloads:     []contract.Workload{w},
		Sources:       []contract.Source{{Path: pick(2, "chart"), Type: "helm", Status: "failed", Reason: pick(1, "x")}},
		Findings:      []contract.Finding{f},
	}
}

// Bodies renders r as comment github does (cmd/capreport/internal/action
// holds its bodies to these): the report, and the diff from a base where
// its first workload passed (from an empty base when it has none).
func Bodies(r *contract.Report) [][]byte {
	base := *r
	base.Workloads = []contract.Workload{}
	if len(r.Workloads) > 0 {
		base.Workloads = []contract.Workload{r.Workloads[0]}
		base.Workloads[0].Verdict = contract.VerdictPass
		base.Workloads[0].Findings = []contract.Finding{}
	}
	head, _ := report.Markdown(*r, report.Options{Title: "capreport", MaxChars: report.DefaultMaxChars})
	d, _ := diff.Markdown(diff.Compare(base, *r), diff.Options{Title: "capreport", MaxChars: report.DefaultMaxChars})
	return [][]byte{head, d}
}

var (
	htmlTag = regexp.MustCompile(`<[^>]*>?`)
	// The only HTML capreport writes: the marker, details blocks, bold,
	// the footer's <sub> and line breaks in findings.
	ownTag = regexp.MustCompile(`^(<!-- capreport -->|<details>|<details open>|</details>|<summary>|</summary>|<b>|</b>|<sub>|</sub>|<br>)$`)
)

// LiveMarkdown parses md as GitHub Flavored Markdown and returns what
// would be live in a comment: images, links and autolinks, HTML that is
// not capreport's, and text GitHub links after rendering (outside code,
// which it leaves alone). capreport writes no link or image itself when
// it is given no plots, images or note, so any is the report's.
func LiveMarkdown(md []byte) []string {
	return LiveIn(GFMParser(), md)
}

// LiveIn is LiveMarkdown with a parser built once (the fuzz target's).
func LiveIn(p parser.Parser, md []byte) []string {
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

// LiveSource is LiveMarkdown by a scan of the source, cheap enough for the
// fuzz targets and stricter than the parse: outside fenced code (the
// Mermaid charts) and HTML blocks, an unescaped "[" could open a link or
// an image, any "<" that does not start one of capreport's tags could be
// HTML or an autolink, and text is held to textLinks.
// TestUntrustedReportInert (report/artifact) runs both checks. It finds the few bytes that
// matter with the strings package's searches, not a loop over every byte:
// when fuzzing, every comparison in Go code calls the fuzzer's hook (the
// searches are assembly, which is not instrumented), and the byte loop
// and the regexp were a quarter of FuzzUntrustedReport's time.
func LiveSource(md []byte) []string {
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
// at, not every byte (see LiveSource).
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

// Check is the property: a report that decodes renders with
// nothing live from its strings, by LiveSource and, when p is not nil, by
// a GitHub Flavored Markdown parse. It reports whether the report decoded.
func Check(t testing.TB, v *report.Validator, p parser.Parser, doc []byte) bool {
	t.Helper()
	r, err := artifact.Decode("report.json", doc, v)
	if err != nil {
		if strings.Count(err.Error(), "\n") > 25 {
			t.Fatalf("the error has %d lines", strings.Count(err.Error(), "\n"))
		}
		return false
	}
	if live, md := Live(p, r); len(live) > 0 {
		t.Fatalf("live in the comment: %s\n%s", strings.Join(live, "; "), md)
	}
	return true
}

// Live is what is live in the first of r's Bodies that has anything
// live, and that body: by LiveSource and, when p is not nil, by p.
func Live(p parser.Parser, r *contract.Report) ([]string, []byte) {
	for _, md := range Bodies(r) {
		live := LiveSource(md)
		if p != nil {
			live = append(live, LiveIn(p, md)...)
		}
		if len(live) > 0 {
			return live, md
		}
	}
	return nil, nil
}

// The tool's patterns, compiled once: BuiltValid runs on every execution.
var (
	toolNameRE    = regexp.MustCompile(report.ToolNamePattern)
	toolVersionRE = regexp.MustCompile(report.ToolVersionPattern)
)

// BuiltValid tells whether r, a report built by Report (or
// MergeInput) and decoded, passes the schema. Such a report's
// strings are free text to the schema but for the tool's fields, which
// have patterns, the workload ids, which must not be empty, and
// generatedAt, never set, which must be a time. TestBuiltValid holds it
// to the validator. The fuzz targets that build their reports use it to
// skip the schema check of the reports they build: at some 100 µs a
// report, the largest part of an execution.
func BuiltValid(r *contract.Report) bool {
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

// DecodeBuilt decodes a report the test built as artifact.Decode does once
// the schema passed it, without artifact.Decode's first parse, for the
// schemaVersion a built report has right: each parse of a report is
// about a tenth of a FuzzMerge execution. TestBuiltValid holds it to
// artifact.Decode.
func DecodeBuilt(t testing.TB, name string, doc []byte) *contract.Report {
	t.Helper()
	var r contract.Report
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatalf("%s: a built report does not decode: %v", name, err)
	}
	r.Summary = contract.Summarize(&r)
	return &r
}

// GFMParser parses as GitHub does: GitHub Flavored Markdown, autolinks
// included.
func GFMParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
}

func NewValidator(t testing.TB) *report.Validator {
	t.Helper()
	v, err := report.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func Marshal(t testing.TB, r contract.Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// MergeInput is Report(s, mask), with a second workload when
// extra is set: the first's id with a suffix, or, when same is set, the
// other report's first workload (a duplicate id).
func MergeInput(s string, mask uint16, extra, same bool, other *contract.Report) contract.Report {
	r := Report(s, mask)
	if extra {
		w := r.Workloads[0]
		w.ID += "-2"
		if same && other != nil {
			w = other.Workloads[0]
		}
		r.Workloads = append(r.Workloads, w)
	}
	return r
}
