package inert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/report/artifact"
)

// The checkers are not blind: Markdown that GitHub would make live, by
// each kind of link, is seen by the parse and by the scan.
func TestCheckersSeeAttacks(t *testing.T) {
	raw := "<sub>capreport ![t](https://evil.example/track.png) #123 org/repo#45 @admin <img src=x> GH-1 www.x.example www\\.y.example</sub>\n"
	if live := LiveMarkdown([]byte(raw)); len(live) < 5 {
		t.Errorf("the parse found only %q in %q", live, raw)
	}
	if live := LiveSource([]byte(raw)); len(live) < 8 {
		t.Errorf("the scan found only %q in %q", live, raw)
	}
}

// The scan reads text as GitHub renders it: a backslash escape is undone
// in Markdown (`www\.` is "www."), an escaped backslash is a backslash,
// and in HTML a backslash is a character like any other.
func TestTextLinksUnescape(t *testing.T) {
	for _, c := range []struct {
		s        string
		markdown bool
		live     bool
	}{
		{`www\.x`, true, true},
		{`www\\.x`, true, false},
		{`www\.x`, false, false},
		{`\@admin`, true, true},
		{`\\@admin`, true, true},
		{`#\1`, true, false},
		{`gh\-1`, true, true},
		{`a\b`, true, false},
	} {
		if got := len(textLinks(c.s, c.markdown)) > 0; got != c.live {
			t.Errorf("textLinks(%q, markdown %v): live %v, want %v", c.s, c.markdown, got, c.live)
		}
	}
}

// TestBuiltValid: BuiltValid says what the schema says of every report
// the fuzz targets build, for strings the tool's patterns take and refuse,
// in each field alone, in the tool's and the id's together, and with
// MergeInput's second workload; and DecodeBuilt decodes each as
// artifact.Decode does.
func TestBuiltValid(t *testing.T) {
	v := NewValidator(t)
	other := DecodeBuilt(t, "other.json", Marshal(t, Report("x", 0)))
	masks := []uint16{0, 0xffff, 1<<5 | 1<<13, 1<<5 | 1<<14, 1<<13 | 1<<14}
	for bit := range 16 {
		masks = append(masks, 1<<bit)
	}
	strs := append([]string{"", "capreport", "dev", "v1.2.3-rc.1+x", "_x", "9", "a b", "é", "\xff", "x\n",
		strings.Repeat("a", 64), strings.Repeat("a", 65)}, Hostile()...)
	valid := map[bool]int{}
	for _, s := range strs {
		for _, mask := range masks {
			for shape := range 3 {
				doc := Marshal(t, MergeInput(s, mask, shape > 0, shape > 1, other))
				want := v.Validate(doc)
				r := DecodeBuilt(t, "r.json", doc)
				if got := BuiltValid(r); got != (want == nil) {
					t.Errorf("%q, mask %#x, shape %d: BuiltValid %v, the schema: %v", s, mask, shape, got, want)
				}
				if d, err := artifact.Decode("r.json", doc, nil); err != nil || !reflect.DeepEqual(d, r) {
					t.Errorf("%q, mask %#x, shape %d: artifact.Decode %v, DecodeBuilt %+v", s, mask, shape, err, r)
				}
				valid[want == nil]++
			}
		}
	}
	if valid[true] == 0 || valid[false] == 0 {
		t.Errorf("valid and not: %v", valid)
	}
}
