package artifact_test

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/report/artifact"
)

// TestUntrustedReportInert: every inert.Hostile() string in every field is either
// refused (the tool's fields) or rendered inert, in the report and in the
// diff; the checker sees the attacks when the strings are not escaped.
func TestUntrustedReportInert(t *testing.T) {
	v, p := inert.NewValidator(t), inert.GFMParser()
	for _, s := range inert.Hostile() {
		for bit := uint(0); bit < 16; bit++ {
			inert.Check(t, v, p, inert.Marshal(t, inert.Report(s, 1<<bit)))
		}
	}
	// Without validation (a trusted local file) the tool's fields reach the
	// footer: escaped there too.
	for _, s := range inert.Hostile() {
		r := inert.Report(s, 1<<13|1<<14|1<<15)
		got, err := artifact.Decode("report.json", inert.Marshal(t, r), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, md := range inert.Bodies(got) {
			if live := inert.LiveMarkdown(md); len(live) > 0 {
				t.Errorf("%q in tool and root: live in the comment: %s", s, strings.Join(live, "; "))
			}
		}
	}
}

// TestUntrustedToolFields: tool.name and tool.version are held to their
// patterns and generatedAt to RFC 3339 where the artifact is read.
func TestUntrustedToolFields(t *testing.T) {
	v := inert.NewValidator(t)
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
		r := inert.Report("x", 0)
		r.Tool = contract.Tool{Name: c.name, Version: c.version}
		r.GeneratedAt = c.generatedAt
		_, err := artifact.Decode("report.json", inert.Marshal(t, r), v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q %q: refused: %v", c.name, c.version, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q %q: err = %v, want one naming %s", c.name, c.version, c.generatedAt, err, c.want)
		}
	}
}

// TestUntrustedHeadlineRecomputed: the headline counts the workloads, not
// the artifact's summary.
func TestUntrustedHeadlineRecomputed(t *testing.T) {
	r := inert.Report("x", 0)
	r.Summary = contract.Summary{Autoscalers: 3, Pass: 3}
	got, err := artifact.Decode("report.json", inert.Marshal(t, r), inert.NewValidator(t))
	if err != nil {
		t.Fatal(err)
	}
	bs := inert.Bodies(got)
	if s := string(bs[0]); !strings.Contains(s, "**1 autoscaler:** ❌ 1 fail · ⚠️ 0 warn · ✅ 0 pass") {
		t.Errorf("report headline:\n%.400s", s)
	}
	if s := string(bs[1]); !strings.Contains(s, "Head: 1 autoscaler — ❌ 1 fail · ⚠️ 0 warn · ✅ 0 pass") {
		t.Errorf("diff headline:\n%.400s", s)
	}
}

// FuzzUntrustedReport is the property of TestUntrustedReportInert for any
// string in any set of fields (mask): the tool's fields are refused or
// inert, every other string renders inert, in the report and in the diff.
// A report inert.BuiltValid takes is rendered without the schema check, which
// would pass it; should it render anything live, the check runs then, to
// tell a rendering bug from a inert.BuiltValid behind the schema. Any other
// report goes the way of an artifact: refused, or rendered and checked.
func FuzzUntrustedReport(f *testing.F) {
	for i, s := range inert.Hostile() {
		f.Add(s, uint16(1)<<(i%16))
	}
	v := inert.NewValidator(f)
	f.Fuzz(func(t *testing.T, s string, mask uint16) {
		doc := inert.Marshal(t, inert.Report(s, mask))
		r := inert.DecodeBuilt(t, "report.json", doc)
		if !inert.BuiltValid(r) {
			inert.Check(t, v, nil, doc)
			return
		}
		if live, md := inert.Live(nil, r); len(live) > 0 {
			if err := v.Validate(doc); err != nil {
				t.Fatalf("inert.BuiltValid takes a report the schema refuses: %v", err)
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
	f.Add([]byte(`{"schemaVersion": "` + contract.SchemaVersion + `", "workloads": "many"}`))
	for i, s := range inert.Hostile()[:4] {
		f.Add(inert.Marshal(f, inert.Report(s, uint16(0xffff)>>(i+1))))
	}
	v := inert.NewValidator(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		inert.Check(t, v, nil, doc)
	})
}
